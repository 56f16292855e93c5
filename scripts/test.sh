#!/bin/sh
# `npm test`: builds, then runs the whole suite. When gnome-keyring and D-Bus are installed it runs inside a private
# D-Bus session with an unlocked Secret Service, so the keychain tests talk to a real keychain. TXDESK_TEST_NO_BUILD=1
# skips the build (bench/suite-cpu times it apart).
set -e
[ -n "${TXDESK_TEST_NO_BUILD:-}" ] || npm run build
if [ -z "${TXDESK_TEST_DBUS:-}" ] && command -v dbus-run-session >/dev/null 2>&1 && command -v gnome-keyring-daemon >/dev/null 2>&1; then
  exec env TXDESK_TEST_DBUS=1 dbus-run-session -- sh -c 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec npx vitest run "$@"' sh "$@"
fi
exec npx vitest run "$@"
