//! Vietnamese: words are syllables separated by spaces, so terms are whole syllables or phrases. Both
//! tone-mark placements are listed ("xóa", "xoá"); normalisation composes decomposed marks.

use super::{broad, marker, within, word, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Vietnamese",
    markers: &[
        marker(within("dọn sạch thùng rác"), Trash),
        marker(within("làm trống thùng rác"), Trash),
        marker(within("chuyển vào thùng rác"), Trash),
        marker(within("gỡ cài đặt"), Uninstall),
        marker(word("xóa"), Delete),
        marker(word("xoá"), Delete),
        marker(within("loại bỏ"), Delete),
        marker(word("gỡ"), Delete),
        broad(within("thùng rác"), Trash),
        broad(within("định dạng"), Format),
    ],
    passwords: &[within("mật khẩu"), within("mã pin")],
    intents: &[
        (Delete, word("xóa")),
        (Delete, word("xoá")),
        (Delete, within("loại bỏ")),
        (Delete, word("gỡ")),
        (Trash, within("thùng rác")),
        (Uninstall, within("gỡ cài đặt")),
        (Uninstall, word("gỡ")),
        (Format, within("định dạng")),
    ],
    negation: Negation { words_before: &["không", "đừng", "chớ", "cấm", "chẳng"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn vietnamese() {
        labels(&[
            ("Xóa tài khoản", Some("xóa"), Some("xóa")),
            ("Xoá", Some("xoá"), Some("xoá")),
            ("Xo\u{0301}a", Some("xóa"), Some("xóa")),
            ("Gỡ cài đặt", Some("gỡ cài đặt"), Some("gỡ cài đặt")),
            ("Dọn sạch thùng rác", Some("dọn sạch thùng rác"), Some("dọn sạch thùng rác")),
            ("Thùng rác", None, Some("thùng rác")),
            ("Định dạng ổ đĩa", None, Some("định dạng")),
            ("Lưu", None, None),
            ("Đổi tên hiển thị", None, None),
        ]);
        intents(&[
            ("xóa tài khoản của tôi", Delete, true),
            ("đừng xóa gì cả", Delete, false),
            ("không xoá tệp nào", Delete, false),
            ("đổi tên hiển thị của tôi", Delete, false),
            ("gỡ cài đặt zoom", Uninstall, true),
            ("dọn sạch thùng rác", Trash, true),
            ("định dạng usb", Format, true),
        ]);
        passwords(&[("Mật khẩu", true), ("Tên người dùng", false)]);
        judged("Xóa tài khoản", "xóa tài khoản của tôi", "đổi tên hiển thị của tôi");
    }
}
