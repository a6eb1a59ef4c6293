"""The hand kinds a game may declare (``games.declaration.Declaration.hand``), each a generic piece of UI
that names no game: ``buttons`` (move buttons), ``capture`` (move buttons plus a card-by-card builder) and
``toggle`` (hand cards toggled, a lay-down proposed, then confirmed). Their words come from the game's
presentation."""
