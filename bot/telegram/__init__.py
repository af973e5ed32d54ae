"""The Telegram front: python-telegram-bot's Application wired to the chat core (bot/core/)."""
