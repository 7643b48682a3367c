"""The suite's parts: timing, peers, machine info, cases, models and reports."""
