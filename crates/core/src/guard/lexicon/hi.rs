//! Hindi. Verbs take endings and particles follow them ("हटाएं", "हटा दें"), so stems fit anywhere;
//! negation comes just before the verb ("मत हटाओ"). Letters with a nukta ("फ़") are written decomposed,
//! as normalisation leaves them.

use super::{broad, marker, within, word, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Hindi",
    markers: &[
        marker(within("ट्रैश खाली करें"), Trash),
        marker(within("रीसायकल बिन खाली करें"), Trash),
        marker(within("अनइंस्टॉल"), Uninstall),
        marker(within("अनइंस्टाल"), Uninstall),
        marker(within("हटा"), Delete),
        marker(within("मिटा"), Delete),
        marker(within("डिलीट"), Delete),
        broad(within("ट्रैश"), Trash),
        broad(within("रीसायकल बिन"), Trash),
        broad(within("कूड़ेदान"), Trash),
        broad(within("फ़ॉर्मैट"), Format),
        broad(within("फ़ॉर्मेट"), Format),
        broad(within("फॉर्मेट"), Format),
    ],
    passwords: &[within("पासवर्ड"), within("कूटशब्द"), word("पिन")],
    intents: &[
        (Delete, within("हटा")),
        (Delete, within("मिटा")),
        (Delete, within("डिलीट")),
        (Trash, within("ट्रैश")),
        (Trash, within("रीसायकल बिन")),
        (Trash, within("कूड़ेदान")),
        (Uninstall, within("अनइंस्टॉल")),
        (Uninstall, within("अनइंस्टाल")),
        (Format, within("फ़ॉर्मैट")),
        (Format, within("फ़ॉर्मेट")),
        (Format, within("फॉर्मेट")),
    ],
    negation: Negation { words_before: &["मत", "न", "नहीं", "ना", "बिना"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn hindi() {
        labels(&[
            ("खाता हटाएं", Some("हटा"), Some("हटा")),
            ("मिटाएँ", Some("मिटा"), Some("मिटा")),
            ("अनइंस्टॉल करें", Some("अनइंस्टॉल"), Some("अनइंस्टॉल")),
            ("ट्रैश खाली करें", Some("ट्रैश खाली करें"), Some("ट्रैश खाली करें")),
            ("ट्रैश", None, Some("ट्रैश")),
            ("डिस्क फ़ॉर्मैट करें", None, Some("फ़ॉर्मैट")),
            ("सहेजें", None, None),
            ("प्रदर्शित नाम बदलें", None, None),
            ("फ़ॉर्म भरें", None, None),
        ]);
        intents(&[
            ("मेरा खाता हटाओ", Delete, true),
            ("यह फ़ाइल डिलीट करो", Delete, true),
            ("कोई फ़ाइल मत हटाओ", Delete, false),
            ("इसे नहीं हटाना", Delete, false),
            ("मेरा प्रदर्शित नाम बदलो", Delete, false),
            ("ज़ूम अनइंस्टॉल करो", Uninstall, true),
            ("ट्रैश खाली करो", Trash, true),
            ("पेन ड्राइव फ़ॉर्मैट करो", Format, true),
        ]);
        passwords(&[("पासवर्ड", true), ("पासवर्ड दर्ज करें", true), ("उपयोगकर्ता नाम", false)]);
        judged("खाता हटाएं", "मेरा खाता हटाओ", "मेरा प्रदर्शित नाम बदलो");
    }
}
