"""One module per kind of target, each a class of targets.base.Target; targets/target.py registers them."""
