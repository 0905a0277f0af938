"""The size family: flash and RAM per primitive from minimal firmware images."""
