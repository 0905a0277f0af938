"""The minimum-RAM family: its kind and the sides it searches, which its modules share."""

KIND = "min-ram"
SIDES = ("client", "server")
