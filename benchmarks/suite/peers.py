"""Finds the frameworks to compare: imported on first use, each one that
cannot be used is recorded with the reason."""
import importlib
import importlib.util

# Ember and NumPy are always there; the others are optional peers.
ALL = ("ember", "numpy", "torch", "tensorflow", "jax")
_MODULES = {"ember": "ember_ops", "numpy": "numpy_ops", "torch": "torch_ops", "tensorflow": "tf_ops",
            "jax": "jax_ops"}


class Peers:
    def __init__(self, wanted=ALL, alone=False):
        """alone: exactly `wanted`, without the Ember and NumPy every run
        otherwise has (one framework's process in isolated mode)."""
        unknown = set(wanted) - set(ALL)
        if unknown:
            raise ValueError(f"unknown framework(s) {sorted(unknown)}; choose from {', '.join(ALL)}")
        self.wanted = set(wanted) if alone else set(wanted) | {"ember", "numpy"}
        self.loaded = {}
        self.skipped = {name: "not selected (--peers)" for name in ALL if name not in self.wanted}

    def get(self, name):
        """The framework's ops module, or None when it is skipped."""
        if name in self.loaded:
            return self.loaded[name]
        if name in self.skipped:
            return None
        if importlib.util.find_spec(name) is None:
            self.skipped[name] = "not installed"
            return None
        try:
            module = importlib.import_module(f"benchmarks.suite.frameworks.{_MODULES[name]}")
        except Exception as e:  # a broken install is a skip with its reason, not a crash
            if name in ("ember", "numpy"):
                raise
            self.skipped[name] = f"import failed: {type(e).__name__}: {e}"
            return None
        self.loaded[name] = module
        return module

    def available(self, names=ALL):
        """The ops modules of `names` that load, in that order."""
        return [m for m in (self.get(n) for n in names) if m is not None]

    def describe(self):
        out = {}
        for name in ALL:
            if name in self.loaded:
                m = self.loaded[name]
                try:
                    threads = m.threads()
                except Exception as e:
                    threads = f"unknown ({type(e).__name__}: {e})"
                out[name] = {"used": True, "version": m.version(), "threads": threads}
            else:
                out[name] = {"used": False, "skipped": self.skipped.get(name, "no case asked for it")}
        return out
