"""keras.utils.Progbar: Keras' text progress bar (`n/n ━━━━ 0s 3ms/step - loss: 0.1`)."""

import sys
import time


def _format_value(value):
    value = float(value)
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"  # Keras' rule


def _format_time(seconds_per_step):
    if seconds_per_step >= 1:
        return f"{seconds_per_step:.0f}s/step"
    if seconds_per_step >= 1e-3:
        return f"{seconds_per_step * 1e3:.0f}ms/step"
    return f"{seconds_per_step * 1e6:.0f}us/step"


class Progbar:
    """``update(current, values)`` redraws the bar in a terminal (carriage
    return), and otherwise prints one line when ``current`` reaches
    ``target``, as Keras does for logs and captured output. verbose=2 prints
    only that final line, without the bar."""

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None, unit_name="step"):
        self.target, self.width, self.verbose, self.interval = target, width, verbose, interval
        self.unit_name = unit_name
        self._start = time.time()
        self._last_update = 0.0
        self._values = {}
        stream = sys.stdout
        self._dynamic = (hasattr(stream, "isatty") and stream.isatty()) or "ipykernel" in sys.modules
        self._last_width = 0

    def _bar(self, current):
        if self.target is None:
            return f"{current}/Unknown"
        digits = len(str(self.target))
        filled = int(self.width * current / max(self.target, 1))
        # Keras draws the rest of the bar in grey; a thin line stands in for that colour here.
        return f"{current:>{digits}}/{self.target} " + "━" * filled + "─" * (self.width - filled)

    def _line(self, current, finalize):
        elapsed = time.time() - self._start
        per_step = elapsed / max(current, 1)
        if self.verbose == 2:
            head = f"{current}/{self.target}" if self.target is not None else f"{current}/Unknown"
            line = f"{head} - {elapsed:.0f}s - {_format_time(per_step)}"
        else:
            if finalize or self.target is None:
                eta = f"{elapsed:.0f}s"
            else:
                eta = f"{per_step * (self.target - current):.0f}s"
            line = f"{self._bar(current)} {eta} {_format_time(per_step)}"
        for key, value in self._values.items():
            line += f" - {key}: {_format_value(value)}"
        return line

    def update(self, current, values=None, finalize=None):
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for key, value in (values or {}).items():
            self._values[key] = value
        if self.verbose == 0:
            return
        now = time.time()
        if self.verbose == 1 and self._dynamic:
            if not finalize and now - self._last_update < self.interval:
                return
            line = self._line(current, finalize)
            pad = max(self._last_width - len(line), 0)
            sys.stdout.write("\r" + line + " " * pad + ("\n" if finalize else ""))
            self._last_width = len(line)
            sys.stdout.flush()
        elif finalize:
            sys.stdout.write(self._line(current, True) + "\n")
            sys.stdout.flush()
        self._last_update = now

    def add(self, n, values=None):
        self._seen = getattr(self, "_seen", 0) + n
        self.update(self._seen, values)
