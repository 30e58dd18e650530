//! The conformance suite (see `handrail_conformance`) on the sim backend.

handrail_conformance::conformance_suite!(handrail_conformance::sim::harness);
