//! The conformance suite (see `handrail_conformance`) on the GNOME backend against GNOME Shell 48,
//! run from the Debian 13 root file system `scripts/setup-trixie` makes.

handrail_conformance::conformance_suite!(handrail_conformance::real::gnome_48);
