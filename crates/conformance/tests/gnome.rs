//! The conformance suite (see `handrail_conformance`) on the GNOME backend.

handrail_conformance::conformance_suite!(handrail_conformance::real::gnome);
