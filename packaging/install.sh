#!/bin/sh
# Installs amdml from this unpacked tarball, for Fedora, Arch and every other Linux on
# x86-64 with glibc 2.35 or newer (on Debian and Ubuntu the .deb is simpler).
#
#   sudo ./install.sh                  into /usr/local
#   ./install.sh --prefix ~/.local     into your home (no root needed)
#   sudo ./install.sh --uninstall      removes what an earlier run installed
#
# Installs PREFIX/bin/amdml, the man page, bash, zsh and fish completions and the docs
# (PREFIX/share/doc/amdml/, one page per finding); the list of what it wrote goes to
# PREFIX/share/doc/amdml/installed-files, which --uninstall reads.
set -eu

prefix=/usr/local
uninstall=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
              prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
list=$prefix/share/doc/amdml/installed-files

if [ $uninstall = 1 ]; then
  [ -f "$list" ] || { echo "install.sh: nothing to uninstall: $list is missing" >&2; exit 1; }
  while IFS= read -r f; do rm -f "$prefix/$f"; done < "$list"
  rm -f "$list"
  rmdir "$prefix/share/doc/amdml/findings" "$prefix/share/doc/amdml" "$prefix/share/amdml" 2>/dev/null || true
  echo "amdml removed from $prefix"
  exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/bin/amdml" ] || { echo "install.sh: run it from the unpacked tarball ($here/bin/amdml is missing)" >&2; exit 1; }

# The binary needs glibc 2.35 or newer and nothing else (libstdc++ is linked in;
# libdrm and the HSA runtime are loaded when present).
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -z "$glibc" ]; then
  echo "install.sh: this system's C library is not glibc (musl?): amdml needs glibc 2.35 or newer" >&2; exit 1
fi
major=${glibc%%.*} minor=${glibc#*.}; minor=${minor%%.*}
if [ "$major" -lt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -lt 35 ]; }; then
  echo "install.sh: glibc $glibc is too old: amdml needs 2.35 or newer" >&2; exit 1
fi

# source in the tarball -> destination under PREFIX (zsh: site-functions, which every
# distribution's zsh searches under /usr/local and /usr).
mapping="bin/amdml bin/amdml
share/man/man1/amdml.1.gz share/man/man1/amdml.1.gz
share/bash-completion/completions/amdml share/bash-completion/completions/amdml
share/zsh/vendor-completions/_amdml share/zsh/site-functions/_amdml
share/fish/vendor_completions.d/amdml.fish share/fish/vendor_completions.d/amdml.fish
share/amdml/amdml-knowledge.gpg share/amdml/amdml-knowledge.gpg"
docs=$(cd "$here" && find share/doc/amdml -type f ! -name installed-files | sort)
for d in $docs; do mapping="$mapping
$d $d"; done

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "$mapping" | while read -r src dst; do
  mode=0644
  [ "$src" = bin/amdml ] && mode=0755
  mkdir -p "$prefix/$(dirname "$dst")"
  # Through a temporary name and rename: a running amdml is never overwritten in place.
  cp "$here/$src" "$prefix/$dst.new.$$"
  chmod "$mode" "$prefix/$dst.new.$$"
  mv -f "$prefix/$dst.new.$$" "$prefix/$dst"
  echo "$dst" >> "$tmp"
done
cp "$tmp" "$list"
chmod 0644 "$list"
echo "amdml installed in $prefix: $("$prefix/bin/amdml" --version | head -n 1)"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on your PATH" ;; esac
echo "next: amdml doctor    (then: sudo amdml fix --apply)"
