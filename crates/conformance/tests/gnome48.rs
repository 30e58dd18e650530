//! The conformance suite (see `handrail_conformance`) on the GNOME backend against GNOME Shell 48,
//! run from the Debian 13 root file system `scripts/setup-trixie` makes, with the GTK 4 probe: GNOME
//! 48's own apps are GTK 4 (GTK 3 on GNOME 48 is in `crates/gnome/tests/desktop.rs`, and the GTK 3
//! probe runs this suite on GNOME 43). Its checks run in two groups, each on one GNOME Shell.

handrail_conformance::conformance_suite!(@grouped handrail_conformance::real::gnome_48_gtk4);
