# Shell helpers shared by the setup scripts. Source after defining say/die.

# ensure_debs PKG...: install the Debian packages not yet installed.
ensure_debs() {
  local missing=() p sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    say "Debian packages present ($#)"
    return
  fi
  command -v apt-get >/dev/null || die "apt-get not found; install by hand: ${missing[*]}"
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  say "installing Debian packages: ${missing[*]}"
  # An install fails on a stale or empty package list: update first.
  $sudo apt-get update -qq || die "apt-get update failed (no network to Debian's mirror?)"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || die "apt-get install failed for: ${missing[*]}"
}

# ensure_triton_venv VENV VERSION: a venv at VENV with triton==VERSION (the
# Triton hook's tests and the corpus compile through it).
ensure_triton_venv() {
  local venv=$1 version=$2 py="$1/bin/python" have
  have=$("$py" -c 'import triton; print(triton.__version__)' 2>/dev/null || true)
  if [ "$have" = "$version" ]; then
    say "triton $have present in $venv"
    return
  fi
  command -v python3 >/dev/null || die "python3 not found (needed for the Triton venv)"
  if [ ! -x "$py" ]; then
    say "creating venv $venv"
    python3 -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  fi
  say "installing triton==$version into $venv${have:+ (had $have)}"
  "$py" -m pip install -q --disable-pip-version-check "triton==$version" \
    || die "pip install triton==$version failed (no network to PyPI?)"
  have=$("$py" -c 'import triton; print(triton.__version__)') || die "triton does not import after install"
  [ "$have" = "$version" ] || die "venv has triton $have, expected $version"
}

# ensure_pip_pkg VENV NAME VERSION MODULE: NAME==VERSION installed in VENV
# (checked by importing MODULE and reading its distribution's version).
ensure_pip_pkg() {
  local venv=$1 name=$2 version=$3 module=$4 py="$1/bin/python" have
  have=$("$py" -c "import $module, importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)
  if [ "$have" = "$version" ]; then
    say "$name $have present in $venv"
    return
  fi
  say "installing $name==$version into $venv${have:+ (had $have)}"
  "$py" -m pip install -q --disable-pip-version-check "$name==$version" \
    || die "pip install $name==$version failed (no network to PyPI?)"
  have=$("$py" -c "import $module, importlib.metadata as m; print(m.version('$name'))") \
    || die "$name does not import after install"
  [ "$have" = "$version" ] || die "venv has $name $have, expected $version"
}
