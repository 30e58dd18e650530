//! The conformance suite (see `handrail_conformance`) on the x11 backend.

handrail_conformance::conformance_suite!(handrail_conformance::real::x11);
