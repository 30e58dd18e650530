//! Arabic. Prefixes attach to words ("احذف", "والحذف"), so terms fit anywhere; text is folded so that
//! alef with or without hamza, vowel marks and the tatweel do not matter.

use super::{broad, marker, within, word, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Arabic",
    markers: &[
        marker(within("افراغ سلة المهملات"), Trash),
        marker(within("نقل الى سلة المهملات"), Trash),
        marker(within("الغاء التثبيت"), Uninstall),
        marker(within("حذف"), Delete),
        marker(within("ازالة"), Delete),
        // Whole word: "منازل" (homes) holds the same letters.
        marker(word("ازل"), Delete),
        broad(within("سلة المهملات"), Trash),
        broad(within("تهيئة"), Format),
        broad(within("مسح").except(&["مسح ضوئي"]), Delete),
    ],
    passwords: &[within("كلمة المرور"), within("كلمة السر"), within("رمز المرور")],
    intents: &[
        (Delete, within("حذف")),
        (Delete, within("ازال")),
        (Delete, word("ازل")),
        (Delete, within("امسح")),
        (Trash, within("سلة المهملات")),
        (Uninstall, within("الغاء التثبيت")),
        (Uninstall, within("ازال")),
        (Format, within("تهيئة")),
        (Format, within("فرمتة")),
    ],
    negation: Negation {
        words_before: &["لا", "لم", "لن", "عدم", "دون", "بدون", "ممنوع"], ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn arabic() {
        labels(&[
            ("حذف الحساب", Some("حذف"), Some("حذف")),
            ("حـذف", Some("حذف"), Some("حذف")),
            ("إزالة", Some("ازالة"), Some("ازالة")),
            ("إلغاء التثبيت", Some("الغاء التثبيت"), Some("الغاء التثبيت")),
            ("إفراغ سلة المهملات", Some("افراغ سلة المهملات"), Some("افراغ سلة المهملات")),
            ("سلة المهملات", None, Some("سلة المهملات")),
            ("تهيئة القرص", None, Some("تهيئة")),
            ("حفظ", None, None),
            ("تغيير الاسم المعروض", None, None),
            ("مسح ضوئي", None, None),
            ("المنازل", None, None),
        ]);
        intents(&[
            ("احذف حسابي", Delete, true),
            ("أزل هذا الملف", Delete, true),
            ("لا تحذف أي شيء", Delete, false),
            ("غيّر اسمي المعروض", Delete, false),
            ("إلغاء التثبيت لبرنامج زوم", Uninstall, true),
            ("أفرغ سلة المهملات", Trash, true),
            ("تهيئة الفلاشة", Format, true),
        ]);
        passwords(&[("كلمة المرور", true), ("كلمة السر", true), ("اسم المستخدم", false)]);
        judged("حذف الحساب", "احذف حسابي", "غيّر اسمي المعروض");
    }
}
