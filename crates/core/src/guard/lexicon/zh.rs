//! Chinese, simplified and traditional, written without spaces: every term fits anywhere. "删"/"刪"
//! alone is the verb in every delete label (删除, 删掉, 刪除).

use super::{broad, marker, within, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Chinese",
    markers: &[
        marker(within("清空回收站"), Trash),
        marker(within("清空废纸篓"), Trash),
        marker(within("倒空废纸篓"), Trash),
        marker(within("清倒废纸篓"), Trash),
        marker(within("移到回收站"), Trash),
        marker(within("移到废纸篓"), Trash),
        marker(within("移至回收站"), Trash),
        marker(within("清空垃圾桶"), Trash),
        marker(within("丟到垃圾桶"), Trash),
        marker(within("移到垃圾桶"), Trash),
        marker(within("清空資源回收筒"), Trash),
        marker(within("卸载"), Uninstall),
        marker(within("解除安裝"), Uninstall),
        marker(within("解除安装"), Uninstall),
        marker(within("删"), Delete),
        marker(within("刪"), Delete),
        marker(within("移除"), Delete),
        marker(within("去除"), Delete),
        broad(within("回收站"), Trash),
        broad(within("废纸篓"), Trash),
        broad(within("垃圾桶"), Trash),
        broad(within("資源回收筒"), Trash),
        broad(within("清除"), Delete),
        broad(within("抹掉"), Delete),
        broad(within("抹除"), Delete),
        broad(within("擦除"), Delete),
        broad(within("格式化"), Format),
    ],
    passwords: &[within("密码"), within("密碼"), within("口令")],
    intents: &[
        (Delete, within("删")),
        (Delete, within("刪")),
        (Delete, within("移除")),
        (Delete, within("去掉")),
        (Delete, within("清除")),
        (Delete, within("抹掉")),
        (Delete, within("抹除")),
        (Trash, within("回收站")),
        (Trash, within("废纸篓")),
        (Trash, within("垃圾桶")),
        (Trash, within("資源回收筒")),
        (Uninstall, within("卸载")),
        (Uninstall, within("解除安裝")),
        (Uninstall, within("解除安装")),
        (Format, within("格式化")),
    ],
    negation: Negation {
        just_before: &["不要", "不用", "不必", "不能", "不准", "不许", "不許", "不可", "别", "別", "勿", "禁止", "不"],
        ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn chinese() {
        labels(&[
            ("删除账户", Some("删"), Some("删")),
            ("删 除", Some("删"), Some("删")),
            ("刪除帳戶", Some("刪"), Some("刪")),
            ("移除", Some("移除"), Some("移除")),
            ("卸载", Some("卸载"), Some("卸载")),
            ("解除安裝", Some("解除安裝"), Some("解除安裝")),
            ("清空回收站", Some("清空回收站"), Some("清空回收站")),
            ("移到废纸篓", Some("移到废纸篓"), Some("移到废纸篓")),
            ("回收站", None, Some("回收站")),
            ("格式化磁盘", None, Some("格式化")),
            ("清除历史记录", None, Some("清除")),
            ("保存", None, None),
            ("修改显示名称", None, None),
            ("移动", None, None),
        ]);
        intents(&[
            ("删除我的账户", Delete, true),
            ("请把这个文件删掉", Delete, true),
            ("刪除我的帳戶", Delete, true),
            ("不要删除任何文件", Delete, false),
            ("别删", Delete, false),
            ("請勿刪除", Delete, false),
            ("修改我的显示名称", Delete, false),
            ("卸载这个软件", Uninstall, true),
            ("清空回收站", Trash, true),
            ("格式化U盘", Format, true),
        ]);
        passwords(&[("密码", true), ("确认密碼", true), ("用户名", false), ("电子邮件", false)]);
        judged("删除账户", "删除我的账户", "修改我的显示名称");
        judged("刪除帳戶", "請刪除我的帳戶", "修改我的顯示名稱");
    }
}
