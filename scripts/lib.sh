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
