"""ucudnn's command, as the wheel installs it (pyproject.toml, scripts/wheel.sh).

The `ucudnn` entry point (and `python -m ucudnn`) runs the packaged command, bin/ucudnn beside this
file, with the same arguments, in this process's place; `ucudnn run` finds its preload layer in
lib/ beside bin/. CUDA's runtime and cuDNN are not in the wheel: the preload layer finds them in
the framework's nvidia wheels beside this package (site-packages/nvidia), else the system's.
"""

import os
import signal
import sys

__all__ = ["command_path", "main"]


def command_path():
    """The packaged `ucudnn` binary."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "ucudnn")


def main():
    """Runs the packaged command with this process's arguments; returns only where it cannot."""
    command = command_path()
    # Python ignores SIGPIPE and SIGXFSZ, and a signal ignored stays ignored across exec: the
    # command, and the program that `ucudnn run` starts in its place, get them back as a shell
    # would start them.
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execv(command, ["ucudnn"] + sys.argv[1:])
    except OSError as error:
        sys.stderr.write("ucudnn: cannot run the packaged command %s: %s\n" % (command, error.strerror))
        # As env and `ucudnn run`: 127 where it is missing, 126 where it is there and cannot run.
        return 127 if not os.path.exists(command) else 126
