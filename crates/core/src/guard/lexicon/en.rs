//! English. The SPEC's lists (§5.4: `delete`, `remove`, `uninstall`, `empty trash`, `move to trash`; broad:
//! `trash`, `erase`, `format`, `wipe`) plus the Bin wording of some desktops.

use super::{broad, marker, within, word, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "English",
    markers: &[
        marker(within("empty trash"), Trash),
        marker(within("empty the trash"), Trash),
        marker(within("move to trash"), Trash),
        marker(within("move to the trash"), Trash),
        marker(within("empty bin"), Trash),
        marker(within("empty the bin"), Trash),
        marker(within("empty recycle bin"), Trash),
        marker(within("move to bin"), Trash),
        marker(within("move to the bin"), Trash),
        marker(within("uninstall"), Uninstall),
        marker(within("delete"), Delete),
        marker(within("remove"), Delete),
        broad(within("trash"), Trash),
        broad(within("erase"), Delete),
        broad(within("wipe").except(&["swipe"]), Delete),
        broad(within("format").except(&["information"]), Format),
    ],
    passwords: &[
        within("password"),
        within("passcode"),
        within("passwd"),
        within("passphrase"),
        within("pincode"),
        // Too short to match inside other words ("spin", "pinned", "Pinterest").
        word("pin"),
        word("pwd"),
    ],
    intents: &[
        (Delete, word_start("delet")),
        (Delete, word_start("remov")),
        (Delete, word_start("erase")),
        (Delete, word_start("erasing")),
        (Delete, word_start("wipe")),
        (Delete, word_start("wiping")),
        (Delete, word_start("discard")),
        (Delete, word_start("destroy")),
        (Delete, word_start("get rid of")),
        (Trash, word_start("trash")),
        (Trash, word_start("recycle")),
        (Trash, word_start("wastebasket")),
        (Uninstall, word_start("uninstal")),
        (Uninstall, word_start("remov")),
        (Format, word_start("format").except(&["information"])),
        (Format, word_start("reformat")),
    ],
    negation: Negation {
        words_before: &[
            "not",
            "no",
            "never",
            "don't",
            "dont",
            "doesn't",
            "didn't",
            "shouldn't",
            "mustn't",
            "won't",
            "can't",
            "cannot",
            "without",
            "nothing",
            "avoid",
            "nor",
        ],
        ..Negation::NONE
    },
};
