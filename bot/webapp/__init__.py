"""The table app: a Telegram Mini App served by the bot itself (aiohttp), a second face of the same tables.

The bot stays the source of truth: the app reads a table through the same store and moves through the
same services as a button press. ``auth`` checks Telegram's initData, ``views`` what a user may see,
``hub`` pushes changes to open apps, ``server`` the routes, ``static/`` the page (no build step).
"""
