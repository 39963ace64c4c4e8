"""Where the cuDNN that this torch loads lives, for the preloaded child processes."""
import os


def bundled_cudnn_path(library_path):
    """LD_LIBRARY_PATH with the directory of torch's own libcudnn.so.9 first. Preloaded,
    libucudnn.so needs libcudnn.so.9 before torch loads its own, so it must find torch's: PyTorch
    refuses a cuDNN older than the one it was built with, and two cuDNNs must not mix."""
    import torch
    torch.backends.cudnn.version()  # loads it
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libcudnn.so" in line:
                return os.path.dirname(line.split()[-1]) + (":" + library_path if library_path else "")
    return library_path or ""


if __name__ == "__main__":
    # `LD_LIBRARY_PATH=$(python3 tests/integration/torch_cudnn.py):...`, as the README shows.
    print(bundled_cudnn_path(""))
