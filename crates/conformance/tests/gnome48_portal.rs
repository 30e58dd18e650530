//! The conformance suite's checks of what the desktop portal's route does differently from
//! mutter's own (see `handrail_conformance`), on GNOME 48 reached through the portal after GNOME's
//! consent dialog was answered (`handrail_conformance::real::gnome_48_portal`), judged by what the
//! GTK 4 probe received: pointer motion by stream node and buttons, the wheel, keys with their
//! modifiers, and text the layout cannot type pasted through the portal's clipboard, and that every
//! change the probe draws reaches the captures through the portal's PipeWire remote (the rest of the
//! screen is checked in `crates/gnome/tests/portal.rs`); what comes after the
//! session is made (settle, windows, accessibility) is the same code on both routes and is checked
//! in `gnome48.rs`. The checks run one after another on one desktop, through one consent.

handrail_conformance::conformance_suite!(@on_one_desktop handrail_conformance::real::gnome_48_portal;
  the_portals_own_input_conforms: [
    clicks_arrive_where_the_app_put_its_button,
    captures_show_every_change_the_app_drew,
    typing_thai_is_exact,
    key_combinations_arrive_with_their_modifiers,
    scrolling_moves_the_list_both_ways,
    drag_and_drop_reaches_the_target,
]);
