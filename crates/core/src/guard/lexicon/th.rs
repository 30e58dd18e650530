//! Thai, written without spaces between words: every term fits anywhere.

use super::{broad, marker, within, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Thai",
    markers: &[
        marker(within("ล้างถังขยะ"), Trash),
        marker(within("ย้ายไปที่ถังขยะ"), Trash),
        marker(within("ย้ายไปถังขยะ"), Trash),
        marker(within("ถอนการติดตั้ง"), Uninstall),
        marker(within("ลบ"), Delete),
        marker(within("เอาออก"), Delete),
        broad(within("ถังขยะ"), Trash),
        broad(within("ล้างข้อมูล"), Delete),
        broad(within("ฟอร์แมต"), Format),
    ],
    passwords: &[within("รหัสผ่าน"), within("รหัสพิน")],
    intents: &[
        (Delete, within("ลบ")),
        (Delete, within("เอาออก")),
        (Delete, within("ทิ้ง")),
        (Trash, within("ถังขยะ")),
        (Uninstall, within("ถอนการติดตั้ง")),
        (Uninstall, within("ถอนติดตั้ง")),
        (Uninstall, within("เอาออก")),
        (Format, within("ฟอร์แมต")),
        (Format, within("ฟอร์แมท")),
    ],
    negation: Negation { just_before: &["อย่า", "ไม่", "ห้าม"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn thai() {
        labels(&[
            ("ลบ", Some("ลบ"), Some("ลบ")),
            ("ลบไฟล์", Some("ลบ"), Some("ลบ")),
            ("ล บ ไฟล์", Some("ลบ"), Some("ลบ")),
            ("เอาออก", Some("เอาออก"), Some("เอาออก")),
            ("ถอนการติดตั้ง", Some("ถอนการติดตั้ง"), Some("ถอนการติดตั้ง")),
            ("ล้างถังขยะ", Some("ล้างถังขยะ"), Some("ล้างถังขยะ")),
            ("ถังขยะ", None, Some("ถังขยะ")),
            ("ฟอร์แมตดิสก์", None, Some("ฟอร์แมต")),
            ("บันทึก", None, None),
            ("แก้ไขชื่อที่แสดง", None, None),
        ]);
        intents(&[
            ("ลบไฟล์นี้", Delete, true),
            ("ช่วยเอาออกให้หน่อย", Delete, true),
            ("อย่าลบไฟล์", Delete, false),
            ("ไม่ต้องลบ", Delete, false),
            ("เปลี่ยนชื่อที่แสดง", Delete, false),
            ("ถอนการติดตั้งโปรแกรมนี้", Uninstall, true),
            ("ล้างถังขยะ", Trash, true),
            ("ฟอร์แมตแฟลชไดรฟ์", Format, true),
        ]);
        passwords(&[("รหัสผ่าน", true), ("รหัส ผ่าน", true), ("กรอกรหัสผ่านของคุณ", true), ("รหัสไปรษณีย์", false)]);
        judged("ลบบัญชี", "ลบบัญชีเก่าของฉัน", "เปลี่ยนชื่อที่แสดง");
    }
}
