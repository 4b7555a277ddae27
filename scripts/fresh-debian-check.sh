#!/usr/bin/env bash
# Checks README.md's two commands the way a newcomer meets them: a clean Debian 12 (bookworm)
# root file system made by debootstrap (variant minbase, the size of a container image), with
# only `make` and `git` added (apt-get install --no-install-recommends), the current checkout's
# committed HEAD cloned into it, then `make test` and `make demo` run inside it under chroot.
#
# Usage: scripts/fresh-debian-check.sh [--keep] [--no-cache]
#   --keep      leave the root file system and logs in place (their path is printed)
#   --no-cache  always debootstrap afresh (by default a pristine tarball of today's debootstrap
#               is kept in $FRESH_CACHE, default /var/cache/cohscope-fresh, and reused today)
# Environment: FRESH_MIRROR (default http://deb.debian.org/debian), FRESH_WORK (parent of the
# scratch directory, default /var/tmp), FRESH_CACHE.
#
# Exit status: 0 when both commands pass, or when the machine does not allow the check (then
# the last line says "skipped: WHY"); 1 when either command fails; 2 on bad usage.
# The last line is always one summary line starting "fresh-debian:".
set -euo pipefail

# All in one function: bash parses it whole before running, so editing this file (e.g. a
# git checkout) during the long run cannot derail it.
main() {
	keep=0
	use_cache=1
	for a in "$@"; do
		case $a in
		--keep) keep=1 ;;
		--no-cache) use_cache=0 ;;
		*)
			echo "usage: $(basename "$0") [--keep] [--no-cache]" >&2
			exit 2
			;;
		esac
	done

	src=$(cd "$(dirname "$0")/.." && pwd)
	mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
	suite=bookworm
	cache_dir=${FRESH_CACHE:-/var/cache/cohscope-fresh}
	export DEBIAN_FRONTEND=noninteractive

	skip() {
		echo "fresh-debian: skipped: $*"
		exit 0
	}
	now() { date +%s; }

	[ "$(id -u)" -eq 0 ] || skip "not root (debootstrap, mount and chroot need root)"
	command -v dpkg >/dev/null && command -v apt-get >/dev/null ||
		skip "not a Debian-like host (no dpkg/apt-get to install debootstrap)"
	head=$(git -C "$src" rev-parse HEAD 2>/dev/null) || skip "$src is not a git checkout"

	if ! command -v debootstrap >/dev/null; then
		echo "fresh-debian: installing debootstrap on the host"
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends debootstrap; } \
			</dev/null >/dev/null 2>&1 || skip "debootstrap is not installed and apt-get cannot install it"
	fi
	# wget comes with debootstrap (a Depends), so it is there to ask the registry.
	command -v wget >/dev/null || skip "no wget (a dependency of debootstrap) to reach $mirror"
	wget -q -T 20 -t 2 -O /dev/null "$mirror/dists/$suite/Release" </dev/null ||
		skip "the Debian registry $mirror is not reachable"

	work=$(mktemp -d "${FRESH_WORK:-/var/tmp}/cohscope-fresh.XXXXXX")
	root=$work/root
	logs=$work/logs
	mkdir -p "$root" "$logs"
	mounted=()

	# Unmounts in reverse order; removes the scratch directory only when nothing is mounted below it
	# (rm -rf over a live bind mount of /dev would delete the host's device nodes).
	# Long steps run in their own session (setsid) in the background and are waited for, so that
	# SIGINT/SIGTERM reach the trap at once; cleanup then ends that session before unmounting.
	child=
	bg_wait() { # bg_wait LOG CMD...: status of CMD, its output in LOG
		local log=$1 rc=0
		shift
		setsid "$@" </dev/null >"$log" 2>&1 &
		child=$!
		wait "$child" || rc=$?
		child=
		return "$rc"
	}
	cleanup() {
		local i
		if [ -n "$child" ]; then
			kill -TERM -- "-$child" 2>/dev/null || true
			sleep 2
			kill -KILL -- "-$child" 2>/dev/null || true
			wait "$child" 2>/dev/null || true
		fi
		# anything else still running inside (dpkg runs in a session of its own under apt)
		local p
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2>/dev/null
		done
		sleep 0.5
		for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
			umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
		done
		mounted=()
		if [ "$keep" = 1 ]; then
			echo "fresh-debian: kept $work"
		elif grep -q " $work/" /proc/mounts; then
			echo "fresh-debian: warning: mounts left under $work, not removing it" >&2
		else
			rm -rf --one-file-system "$work"
		fi
	}
	trap cleanup EXIT
	trap 'echo "fresh-debian: FAIL: interrupted (SIGINT)"; exit 130' INT
	trap 'echo "fresh-debian: FAIL: interrupted (SIGTERM)"; exit 143' TERM

	# --- the root file system: today's cached pristine debootstrap, or a new one ---------------------
	arch=$(dpkg --print-architecture)
	tarball=$cache_dir/$suite-minbase-$arch-$(date -u +%Y%m%d).tar
	t0=$(now)
	if [ "$use_cache" = 1 ] && [ -s "$tarball" ]; then
		tar -C "$root" -xpf "$tarball"
		boot_how="from today's cache $tarball"
	else
		echo "fresh-debian: debootstrap --variant=minbase $suite $mirror"
		if ! bg_wait "$logs/debootstrap.log" debootstrap --variant=minbase "$suite" "$root" "$mirror"; then
			tail -n 5 "$logs/debootstrap.log"
			if grep -qiE "couldn't download|failed to resolve|unable to fetch|connection" "$logs/debootstrap.log"; then
				skip "debootstrap could not download from $mirror"
			fi
			echo "fresh-debian: FAIL: debootstrap failed (log above)"
			exit 1
		fi
		boot_how="debootstrap"
		if [ "$use_cache" = 1 ]; then
			mkdir -p "$cache_dir"
			rm -f "$cache_dir/$suite-minbase-$arch-"*.tar # earlier days' roots are stale
			tar -C "$root" -cpf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
		fi
	fi
	t_boot=$(($(now) - t0))

	# --- mounts: /proc, /sys, /dev (/dev/null, /dev/full, /dev/urandom ...) -----------------------
	mnt() { # mnt TARGET MOUNT-ARGS...
		mount "${@:2}" "$root$1" || skip "cannot mount $1 in the chroot (no CAP_SYS_ADMIN?)"
		mounted+=("$root$1")
	}
	mnt /proc -t proc proc
	mnt /sys -t sysfs sysfs
	mnt /dev --bind /dev
	# a slave: what is mounted below the chroot's /dev must not propagate back to the host's /dev
	mount --make-slave "$root/dev" || skip "cannot make the chroot's /dev a slave mount"
	# /dev/pts (apt's log of dpkg's output wants a pseudo-terminal) and /dev/shm: submounts that the
	# plain bind of /dev leaves out
	[ -d /dev/pts ] && mnt /dev/pts --bind /dev/pts
	mkdir -p "$root/dev/shm" 2>/dev/null || true
	mnt /dev/shm -t tmpfs -o mode=1777,nosuid,nodev tmpfs
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

	# Inside: a clean environment like a login shell's, no terminal, no standard input.
	inside=(chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash
		LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		DEBIAN_FRONTEND=noninteractive ${CI:+CI=$CI})
	in_root() { "${inside[@]}" "$@" </dev/null; }
	chroot "$root" /bin/true 2>/dev/null || skip "cannot chroot into $root"

	# --- only make and git (no recommends) ----------------------------------------------------------
	t0=$(now)
	if ! bg_wait "$logs/make-git.log" "${inside[@]}" \
		bash -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends make git'; then
		tail -n 5 "$logs/make-git.log"
		echo "fresh-debian: FAIL: apt-get install make git in the chroot failed"
		exit 1
	fi
	t_mkgit=$(($(now) - t0))
	in_root dpkg-query -W -f='${Package}\n' | sort >"$logs/pkgs-base.txt"

	# --- the checkout: committed HEAD only, as a newcomer's git clone gives it ------------------------
	git clone -q --no-hardlinks "$src" "$root/root/cohscope"
	git -C "$root/root/cohscope" checkout -q --detach "$head"
	echo "fresh-debian: cloned $src at ${head:0:12} into the chroot's /root/cohscope"

	# --- README.md's two commands -------------------------------------------------------------------
	run_cmd() { # run_cmd NAME: `make NAME` in the clone; sets t_NAME and rc_NAME
		local name=$1 t rc=0
		echo "fresh-debian: make $name ..."
		t=$(now)
		bg_wait "$logs/make-$name.log" "${inside[@]}" bash -c "cd /root/cohscope && make $name" || rc=$?
		printf -v "t_$name" %d $(($(now) - t))
		printf -v "rc_$name" %d "$rc"
		if [ "$rc" != 0 ]; then
			echo "fresh-debian: make $name failed (status $rc); its last lines:"
			tail -n 40 "$logs/make-$name.log" | sed 's/^/  | /'
		fi
	}
	run_cmd test
	in_root dpkg-query -W -f='${Package}\n' | sort >"$logs/pkgs-after-test.txt"
	run_cmd demo

	added=$(comm -13 "$logs/pkgs-base.txt" "$logs/pkgs-after-test.txt" | wc -l)
	tests=$(grep -E 'tests passed, [0-9]+ tests failed out of' "$logs/make-test.log" | tail -n 1 || true)
	demo=$(grep -E '^ *[0-9]+ benchmarks, [0-9]+ failed' "$logs/make-demo.log" | tail -n 1 | sed 's/^ *//' || true)
	asked=$(grep -m1 '^install-deps: installing' "$logs/make-test.log" | cut -d' ' -f3- || true)
	comm -13 "$logs/pkgs-base.txt" "$logs/pkgs-after-test.txt" >"$logs/pkgs-added.txt"
	echo "fresh-debian: root file system: $boot_how, $t_boot s; make+git: $t_mkgit s" \
		"($(wc -l <"$logs/pkgs-base.txt") packages)"
	echo "fresh-debian: make test: status $rc_test, $t_test s (install-deps asked for: ${asked:-nothing};" \
		"with their dependencies $added packages;" \
		"ctest: ${tests:-no summary line})"
	echo "fresh-debian: make demo: status $rc_demo, $t_demo s (${demo:-no summary line})"
	if [ "$keep" = 1 ] || [ "$rc_test" != 0 ] || [ "$rc_demo" != 0 ]; then
		keep=1 # keep the evidence of a failure
		echo "fresh-debian: logs in $logs"
	fi
	if [ "$rc_test" = 0 ] && [ "$rc_demo" = 0 ]; then
		echo "fresh-debian: ok: Debian 12 minbase + make + git: make test ${t_test} s, make demo ${t_demo} s"
	else
		echo "fresh-debian: FAIL: make test status $rc_test, make demo status $rc_demo"
		exit 1
	fi
}

main "$@"
