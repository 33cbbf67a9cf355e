#!/bin/sh
# Prints the libjpeg-turbo development package for this system, decided from
# os-release (make deps): Debian calls it libjpeg62-turbo-dev, Ubuntu
# libjpeg-turbo8-dev. Asking apt-cache instead fails on a fresh machine whose
# package lists are still empty (apt-cache show exits 100 for any package not
# installed), which used to pick Ubuntu's name on Debian.
# Usage: jpeg-dev-package.sh [OS-RELEASE-FILE]
set -eu
file=${1:-/etc/os-release}
[ -r "$file" ] || file=/usr/lib/os-release
id=""; id_like=""
if [ -r "$file" ]; then
    id=$(sed -n 's/^ID=//p' "$file" | tr -d '"')
    id_like=$(sed -n 's/^ID_LIKE=//p' "$file" | tr -d '"')
fi
case " $id $id_like " in
    *" ubuntu "*) echo libjpeg-turbo8-dev ;;
    *) echo libjpeg62-turbo-dev ;;
esac
