//! The conformance suite (see `handrail_conformance`) on the wayland backend.

handrail_conformance::conformance_suite!(handrail_conformance::real::wayland);
