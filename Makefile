# hapticd: build, test, install, package.
#   make               release build of hapticd and hapticctl, man pages, shell completions
#   make test          every test (scripts/test.sh)
#   make fuzz          long fuzzing campaigns, FUZZ_TIME seconds per target (docs/robustness.md)
#   make soak          the soak test for SOAK_TIME seconds (docs/robustness.md)
#   make install       PREFIX=/usr/local DESTDIR= (binaries, units, config, patterns, man pages, ...)
#                      then: systemctl daemon-reload && systemd-sysusers && systemctl enable --now hapticd.socket
#                      (and, for a pad already plugged in: udevadm trigger --subsystem-match=hidraw)
#   make deb           dist/hapticd, libhapticd1, libhapticd-dev _<version>_<arch>.deb, with debian/
#                      (dpkg-buildpackage; docs/packaging.md)
#   make unity         dist/unity/Plugins/Linux/x86_64/libCoreHapticsWrapper.so (+ .meta) and
#                      dist/hapticd-unity-<version>-linux-x86_64.tar.gz: Apple's Unity Core Haptics
#                      plug-in's native library for Linux (docs/clients.md, "Unity")
#
# The binaries link the Swift runtime statically (--static-swift-stdlib): they need only glibc,
# libstdc++ and libgcc_s (hapticd also libevdev and alsa-lib) at run time, all Debian packages, and
# no Swift toolchain.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SHAREDIR ?= $(PREFIX)/share
MANDIR ?= $(SHAREDIR)/man
DOCDIR ?= $(SHAREDIR)/doc/hapticd
SYSCONFDIR ?= /etc
# systemd reads units, sysusers.d and tmpfiles.d from /usr/local/lib/... as well as /usr/lib/...
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
# udev reads rules from /usr/local/lib/udev/rules.d as well as /usr/lib/udev/rules.d.
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
BASHCOMPDIR ?= $(SHAREDIR)/bash-completion/completions
ZSHCOMPDIR ?= $(SHAREDIR)/zsh/site-functions
FISHCOMPDIR ?= $(SHAREDIR)/fish/vendor_completions.d
SWIFT ?= swift
# The release build's Swift flags, declared once for every build of hapticd and hapticctl as they
# ship (`make build`, `make install`, the .deb, `make bench`; scripts/vm-test.sh asks for them with
# `make -s release-swiftflags`): Swift's run-time exclusivity checks off, as Swift's own standard
# library is built. `swift_beginAccess` alone was 14 % of a rumble's instructions (docs/benchmarks.md,
# "Exclusivity checks off in the release build"). Debug builds keep the checks (`swift test` and the
# debug end-to-end tests); `make unity` does not use these flags (docs/packaging.md).
RELEASE_SWIFTFLAGS = -Xswiftc -enforce-exclusivity=unchecked
SWIFT_BUILD = $(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath $(RELEASE_SWIFTFLAGS)
BIN = $(shell $(SWIFT_BUILD) --show-bin-path)
GEN = .build/generated
# The version the daemon reports; debian/changelog must agree (scripts/systemd-test.sh checks).
VERSION = $(shell sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/HapticDaemon/DaemonCore.swift)
# Man page date: the package's changelog date, so that a rebuild gives the same page.
MANDATE = $(shell date -u -d "@$$(dpkg-parsechangelog -STimestamp 2>/dev/null || date +%s)" +%Y-%m-%d)

FUZZ_TIME ?= 3600
SOAK_TIME ?= 600

.PHONY: all build generated test fuzz soak install uninstall deb demo clean deps-build deps-lib deps-deb release-swiftflags bench

# The Debian packages each target builds with (debian/control's Build-Depends), installed when missing
# (scripts/deps.sh: idempotent, apt-get through sudo when not root), so that a fresh Debian needs no
# step by hand.
BUILD_DEPS = libevdev-dev libasound2-dev pkg-config
LIB_DEPS = gcc libc6-dev make pkg-config libjansson-dev
DEB_DEPS = dpkg-dev debhelper $(BUILD_DEPS) $(LIB_DEPS)
deps-build:
	@bash scripts/deps.sh $(BUILD_DEPS)
deps-lib:
	@bash scripts/deps.sh $(LIB_DEPS)
deps-deb:
	@bash scripts/deps.sh $(DEB_DEPS)
build: deps-build
deb: deps-deb

all: build generated

build:
	$(SWIFT_BUILD) --product hapticd
	$(SWIFT_BUILD) --product hapticctl

release-swiftflags:
	@echo $(RELEASE_SWIFTFLAGS)

# hapticbench as the daemon ships (docs/benchmarks.md): the release flags above.
bench: deps-build
	$(SWIFT_BUILD) --product hapticbench

# hapticctl(1) comes from its argument parser (swift-argument-parser's generate-manual, through
# man/generate-hapticctl.sh, which keeps the help's non-ASCII characters that generate-manual drops);
# hapticd(8), which has more to say about files, signals and systemd than about options, is written (man/).
generated: build
	$(SWIFT_BUILD) --product generate-manual
	rm -rf $(GEN) && mkdir -p $(GEN)/man $(GEN)/completions
	bash man/generate-hapticctl.sh "$(BIN)" $(GEN)/man $(MANDATE)
	# Completion files are sourced, not run: no #! line (Debian's bash-completion policy).
	for shell in bash zsh fish; do for tool in hapticctl hapticd; do \
	  "$(BIN)/$$tool" --generate-completion-script $$shell | sed '1{/^#!/d}' > $(GEN)/completions/$$tool.$$shell || exit 1; \
	done; done
	# The udev rule for the hidraw nodes of the pads with a hidraw profile, made from those profiles
	# (the built-in ones: /dev/null is an empty configuration; docs/packaging.md, "The udev rule").
	"$(BIN)/hapticd" --print-udev-rules --config /dev/null > $(GEN)/70-hapticd.rules

test:
	bash scripts/test.sh

fuzz:
	bash scripts/fuzz.sh --release --time $(FUZZ_TIME)

soak:
	bash scripts/soak.sh --duration $(SOAK_TIME)

demo:
	bash scripts/demo.sh

install: build generated
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/hapticd/patterns $(DESTDIR)$(SYSCONFDIR)/hapticd/patterns \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(UDEVRULESDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 "$(BIN)/hapticd" "$(BIN)/hapticctl" $(DESTDIR)$(BINDIR)/
	install -m 0644 $(wildcard config/patterns/*.ahap config/patterns/*.haptic) $(DESTDIR)$(SHAREDIR)/hapticd/patterns/
	# The installed config names where this install put the patterns (an existing config is kept).
	test -e $(DESTDIR)$(SYSCONFDIR)/hapticd/hapticd.toml || \
	  sed -e 's|^#directories = .*|directories = ["$(SHAREDIR)/hapticd/patterns", "$(SYSCONFDIR)/hapticd/patterns"]|' \
	    config/hapticd.toml > $(DESTDIR)$(SYSCONFDIR)/hapticd/hapticd.toml
	chmod 0644 $(DESTDIR)$(SYSCONFDIR)/hapticd/hapticd.toml
	sed -e 's|/usr/bin/hapticd|$(BINDIR)/hapticd|' -e 's|/etc/hapticd|$(SYSCONFDIR)/hapticd|g' \
	    systemd/hapticd.service > $(DESTDIR)$(UNITDIR)/hapticd.service
	install -m 0644 systemd/hapticd.socket $(DESTDIR)$(UNITDIR)/hapticd.socket
	chmod 0644 $(DESTDIR)$(UNITDIR)/hapticd.service
	install -m 0644 systemd/hapticd.sysusers $(DESTDIR)$(SYSUSERSDIR)/hapticd.conf
	sed -e 's|/etc/hapticd|$(SYSCONFDIR)/hapticd|g' systemd/hapticd.tmpfiles > $(DESTDIR)$(TMPFILESDIR)/hapticd.conf
	chmod 0644 $(DESTDIR)$(TMPFILESDIR)/hapticd.conf
	install -m 0644 $(GEN)/70-hapticd.rules $(DESTDIR)$(UDEVRULESDIR)/70-hapticd.rules
	sed 's/@VERSION@/$(VERSION)/' man/hapticd.8 > $(DESTDIR)$(MANDIR)/man8/hapticd.8
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/hapticd.8
	install -m 0644 $(GEN)/man/hapticctl.1 $(DESTDIR)$(MANDIR)/man1/hapticctl.1
	install -m 0644 $(GEN)/completions/hapticctl.bash $(DESTDIR)$(BASHCOMPDIR)/hapticctl
	install -m 0644 $(GEN)/completions/hapticd.bash $(DESTDIR)$(BASHCOMPDIR)/hapticd
	install -m 0644 $(GEN)/completions/hapticctl.zsh $(DESTDIR)$(ZSHCOMPDIR)/_hapticctl
	install -m 0644 $(GEN)/completions/hapticd.zsh $(DESTDIR)$(ZSHCOMPDIR)/_hapticd
	install -m 0644 $(GEN)/completions/hapticctl.fish $(DESTDIR)$(FISHCOMPDIR)/hapticctl.fish
	install -m 0644 $(GEN)/completions/hapticd.fish $(DESTDIR)$(FISHCOMPDIR)/hapticd.fish
	install -m 0644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/
	@echo "installed; now: systemctl daemon-reload && systemd-sysusers && systemctl enable --now hapticd.socket"
	@echo "(and, for a pad already plugged in: udevadm trigger --subsystem-match=hidraw)"

uninstall:
	-systemctl disable --now hapticd.socket hapticd.service 2>/dev/null
	rm -f $(DESTDIR)$(BINDIR)/hapticd $(DESTDIR)$(BINDIR)/hapticctl \
		$(DESTDIR)$(UNITDIR)/hapticd.service $(DESTDIR)$(UNITDIR)/hapticd.socket \
		$(DESTDIR)$(SYSUSERSDIR)/hapticd.conf $(DESTDIR)$(TMPFILESDIR)/hapticd.conf \
		$(DESTDIR)$(UDEVRULESDIR)/70-hapticd.rules \
		$(DESTDIR)$(MANDIR)/man8/hapticd.8 $(DESTDIR)$(MANDIR)/man1/hapticctl.1 \
		$(DESTDIR)$(BASHCOMPDIR)/hapticctl $(DESTDIR)$(BASHCOMPDIR)/hapticd \
		$(DESTDIR)$(ZSHCOMPDIR)/_hapticctl $(DESTDIR)$(ZSHCOMPDIR)/_hapticd \
		$(DESTDIR)$(FISHCOMPDIR)/hapticctl.fish $(DESTDIR)$(FISHCOMPDIR)/hapticd.fish
	rm -rf $(DESTDIR)$(SHAREDIR)/hapticd $(DESTDIR)$(DOCDIR)
	@echo "kept $(SYSCONFDIR)/hapticd (configuration and your patterns)"

# dpkg-buildpackage runs debian/rules, which runs `make install` into the package tree. The results
# land in dist/ instead of the parent directory.
deb:
	@test "$$(dpkg-parsechangelog -SVersion)" = "$(VERSION)" || { echo "debian/changelog is at $$(dpkg-parsechangelog -SVersion) but hapticd at $(VERSION): add a changelog entry (dch -v $(VERSION))" >&2; exit 1; }
	mkdir -p dist
	HAPTICD_DEB_DESTDIR=$(CURDIR)/dist dpkg-buildpackage --build=binary --no-sign --no-pre-clean \
		--buildinfo-file=dist/hapticd_$(VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).buildinfo \
		--changes-file=dist/hapticd_$(VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).changes \
		--buildinfo-option=-udist --changes-option=-udist
	@ls dist/*_$(VERSION)_*.deb

clean:
	rm -rf .build .build-vm Fuzzing/.build Fuzzing/.build-release dist debian/.debhelper debian/tmp debian/hapticd debian/libhapticd1 debian/libhapticd-dev \
		debian/files debian/debhelper-build-stamp \
		debian/*.substvars debian/*.debhelper

# libhapticd, the C client library (clients/c; docs/clients.md): built, installed, removed and
# cleaned with the daemon — hapticd.h, libhapticd.so.1 and .a, and hapticd.pc under $(PREFIX).
.PHONY: libhapticd install-libhapticd uninstall-libhapticd clean-libhapticd
all: libhapticd
install: install-libhapticd
uninstall: uninstall-libhapticd
clean: clean-libhapticd
libhapticd install-libhapticd: deps-lib
libhapticd:
	$(MAKE) -C clients/c PREFIX=$(PREFIX)
install-libhapticd:
	$(MAKE) -C clients/c install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
uninstall-libhapticd:
	$(MAKE) -C clients/c uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
clean-libhapticd:
	$(MAKE) -C clients/c clean

# libCoreHapticsWrapper.so, the native library of Apple's Unity plug-in Apple.CoreHaptics, for Linux
# (Sources/CoreHapticsWrapper; docs/clients.md, "Unity"): a release build of its own (.build-unity)
# with the Swift runtime linked in, exporting only the plug-in's functions (the linker's version
# script is made from CoreHapticsWrapper.exports), laid out in dist/unity as a Unity project's
# Assets/ expects it (Plugins/Linux/x86_64, with a .meta selecting Linux x86_64), plus a tarball.
# `make install` puts the library in $(UNITYDIR) for games to copy. SwiftPM's --static-swift-stdlib
# links the runtime into executables only: -Xswiftc -static-stdlib does it for this shared library.
.PHONY: unity install-unity uninstall-unity
UNITY_BUILD = $(SWIFT) build -c release --scratch-path .build-unity --static-swift-stdlib -Xswiftc -static-stdlib --disable-local-rpath
UNITY_EXPORTS = Sources/CoreHapticsWrapper/CoreHapticsWrapper.exports
UNITY_PLUGIN = dist/unity/Plugins/Linux/x86_64
UNITYDIR ?= $(PREFIX)/lib/hapticd/unity
install: install-unity
uninstall: uninstall-unity
unity:
	scripts/deps.sh binutils tar gzip
	mkdir -p .build-unity
	{ echo '{ global:'; grep -v '^#' $(UNITY_EXPORTS) | sed 's/.*/  &;/'; echo '  local: *;'; echo '};'; } > .build-unity/exports.map
	# -z nodelete: a host that unloads the plug-in (Mono dlcloses every P/Invoke library at exit, an
	# editor on a domain reload) must not unmap code the library's own threads may still be running
	# (the reader of the daemon's socket, a request's timeout): a Mono run died once that way.
	$(UNITY_BUILD) --product CoreHapticsWrapper -Xlinker --version-script=$(CURDIR)/.build-unity/exports.map -Xlinker -z -Xlinker nodelete
	rm -rf dist/unity && mkdir -p $(UNITY_PLUGIN)
	install -m 0755 "$$($(UNITY_BUILD) --show-bin-path)/libCoreHapticsWrapper.so" $(UNITY_PLUGIN)/
	strip --strip-unneeded $(UNITY_PLUGIN)/libCoreHapticsWrapper.so
	install -m 0644 clients/unity/libCoreHapticsWrapper.so.meta $(UNITY_PLUGIN)/
	tar -C dist/unity --owner=0 --group=0 -czf dist/hapticd-unity-$(VERSION)-linux-x86_64.tar.gz Plugins
	@echo "dist/unity/Plugins: copy into your Unity project's Assets/ (or dist/hapticd-unity-$(VERSION)-linux-x86_64.tar.gz)"
install-unity: unity
	install -d $(DESTDIR)$(UNITYDIR)
	install -m 0644 $(UNITY_PLUGIN)/libCoreHapticsWrapper.so $(UNITY_PLUGIN)/libCoreHapticsWrapper.so.meta $(DESTDIR)$(UNITYDIR)/
uninstall-unity:
	rm -rf $(DESTDIR)$(UNITYDIR)
