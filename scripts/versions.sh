# Pinned versions of what the setup scripts download (sourced).
TRITON_VERSION=3.9.0  # newest 3.x on PyPI when the corpus was made
PERFETTO_VERSION=0.59.1  # Perfetto's Python package: the official perfetto_trace.proto descriptor
