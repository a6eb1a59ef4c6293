"""Words and keyboards: how an action becomes a button and a view or event becomes text."""
