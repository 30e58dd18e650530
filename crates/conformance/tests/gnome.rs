//! The conformance suite (see `handrail_conformance`) on the GNOME backend, its checks in two
//! groups, each group on one GNOME Shell (starting one takes seconds).

handrail_conformance::conformance_suite!(@grouped handrail_conformance::real::gnome);
