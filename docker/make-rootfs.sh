#!/usr/bin/env bash
# Assembles the container image's whole file system in ROOTFS, for a
# `FROM scratch` final stage (docker/Dockerfile's build stage runs it):
#   - skiff, stripped, with the shared libraries ldd finds for it (and the
#     dynamic loader), at their Debian paths;
#   - bash and a static busybox giving sh, sleep, hostname and a few tools,
#     for the start scripts test suites write (Testcontainers runs
#     `sh -c "...; /tmp/testcontainers_start.sh"`, a #!/bin/bash script);
#   - docker/rootfs/ (the entry point, /etc/kafka/docker/run, the image's
#     defaults, Confluent's start-script layout);
#   - /etc/passwd and /etc/group with root and skiff (uid/gid 1000), /tmp,
#     the volume /var/lib/skiff, /mnt/shared/config and /etc/kafka/secrets.
# Ownership of the skiff user's directories is set by the Dockerfile
# (COPY does not keep it). Debian bookworm's paths: /bin, /lib, /lib64 and
# /sbin are links into /usr, as on a merged-/usr system.
#   docker/make-rootfs.sh BINARY ROOTFS
set -euo pipefail
bin=$1
root=$2
src=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,usr/local/bin,etc,tmp,var/lib/skiff,mnt/shared/config,etc/kafka/secrets}
for d in bin lib lib64 sbin; do ln -sfn "usr/$d" "$root/$d"; done
chmod 1777 "$root/tmp"

# A program and every library ldd lists for it, at the same paths.
copy_with_libraries() {
  local file=$1 dest=$2
  install -D -m 0755 "$file" "$root$dest"
  local lib
  for lib in $(ldd "$file" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
    [[ -e "$root$lib" ]] || { mkdir -p "$(dirname "$root$lib")" && cp -L "$lib" "$root$lib"; }
  done
}
copy_with_libraries "$bin" /usr/local/bin/skiff
strip "$root/usr/local/bin/skiff"
copy_with_libraries /bin/bash /usr/bin/bash
install -m 0755 /bin/busybox "$root/usr/bin/busybox"
for applet in sh sleep hostname cat sed cut id ls mkdir rm env grep echo test [ true false printf tr head tail \
  ps kill wc sort awk touch chmod cp mv ln pwd uname whoami dirname basename readlink; do
  [[ -e "$root/usr/bin/$applet" ]] || ln -s busybox "$root/usr/bin/$applet"
done
# Fails the build, not the first run, if a library is missing.
chroot "$root" /usr/local/bin/skiff --version
chroot "$root" /bin/bash -c 'true'

cp -a "$src/rootfs/." "$root/"
printf 'root:x:0:0:root:/root:/bin/sh\nskiff:x:1000:1000:skiff:/var/lib/skiff:/usr/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nskiff:x:1000:\n' >"$root/etc/group"
chmod 0750 "$root/var/lib/skiff"
