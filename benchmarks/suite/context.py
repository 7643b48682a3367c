"""What every case builder gets: the frameworks to compare and the size of the run."""
from dataclasses import dataclass

from benchmarks.suite.peers import Peers


@dataclass
class Context:
    peers: Peers
    # --quick: a smoke test in seconds, smaller inputs and few rounds; its
    # numbers are not for comparison.
    quick: bool = False

    def pick(self, full, quick):
        return quick if self.quick else full
