"""What the CLI acceptance scripts share: `poslab` (the binary named on their command line)
run on files in a scratch folder of their own."""

import os
import subprocess
import tempfile


class ScratchCli:
    def __init__(self, binary, prefix):
        self.binary = binary
        self.folder = tempfile.mkdtemp(prefix=prefix)

    def path(self, name):
        return os.path.join(self.folder, name)

    def run(self, *args):
        """poslab's stdout for `args` (each str()-ed); RuntimeError with its stderr if it fails."""
        proc = subprocess.run([self.binary, *map(str, args)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"poslab {' '.join(map(str, args))} failed: {proc.stderr.strip()}")
        return proc.stdout
