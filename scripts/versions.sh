# Pinned versions of what the setup scripts download (sourced).
TRITON_VERSION=3.9.0  # newest 3.x on PyPI when the corpus was made
# The GPU machines' image ships Triton 3.6: the hook's tests also run against
# it (.tools/triton-gpu-image, put first on PYTHONPATH by scripts/python.sh).
TRITON_GPU_IMAGE_VERSION=3.6.0
PERFETTO_VERSION=0.59.1  # Perfetto's Python package: the official perfetto_trace.proto descriptor
# The Python package's build backend and test tools (in .tools/triton-venv).
MATURIN_VERSION=1.16.0
PYTEST_VERSION=9.2.0
NUMPY_VERSION=2.4.6
# Frames the Python package returns when asked (tests check both).
PANDAS_VERSION=3.1.1
POLARS_VERSION=2.1.0
