#!/bin/sh
# Debian's Chromium, which the viewer's browser tests drive (tests/browser.py; no browser is
# ever downloaded by pip or playwright). Nothing to do when a chromium is already installed.
# Needs root on Debian/Ubuntu; elsewhere it says so and the browser tests skip with that reason.
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
    echo "install_chromium: not root on a Debian system: install chromium yourself (apt-get install chromium);" \
         "until then the browser tests are skipped" >&2
fi
