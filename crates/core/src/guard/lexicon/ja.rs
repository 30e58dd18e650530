//! Japanese, written without spaces: every term fits anywhere. Negation follows the verb ("削除しないで").

use super::{broad, marker, within, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Japanese",
    markers: &[
        marker(within("ゴミ箱を空にする"), Trash),
        marker(within("ごみ箱を空にする"), Trash),
        marker(within("ゴミ箱に入れる"), Trash),
        marker(within("ごみ箱に入れる"), Trash),
        marker(within("ゴミ箱に移動"), Trash),
        marker(within("ごみ箱に移動"), Trash),
        marker(within("ゴミ箱へ移動"), Trash),
        marker(within("ごみ箱へ移動"), Trash),
        marker(within("アンインストール"), Uninstall),
        marker(within("削除"), Delete),
        marker(within("消去"), Delete),
        marker(within("除去"), Delete),
        marker(within("取り除く"), Delete),
        broad(within("ゴミ箱"), Trash),
        broad(within("ごみ箱"), Trash),
        broad(within("フォーマット"), Format),
        broad(within("初期化"), Format),
        broad(within("ワイプ"), Delete),
    ],
    passwords: &[within("パスワード"), within("暗証番号"), within("パスコード")],
    intents: &[
        (Delete, within("削除")),
        (Delete, within("消去")),
        (Delete, within("消して").except(&["取り消して"])),
        (Delete, within("消す").except(&["取り消す"])),
        (Delete, within("除去")),
        (Delete, within("取り除")),
        (Trash, within("ゴミ箱")),
        (Trash, within("ごみ箱")),
        (Uninstall, within("アンインストール")),
        (Format, within("フォーマット")),
        (Format, within("初期化")),
    ],
    negation: Negation {
        just_after: &[
            "しない",
            "しません",
            "せず",
            "するな",
            "禁止",
            "さない",
            "さず",
            "すな",
            "しちゃだめ",
            "してはいけ",
        ],
        ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn japanese() {
        labels(&[
            ("アカウントを削除", Some("削除"), Some("削除")),
            ("削 除", Some("削除"), Some("削除")),
            ("すべて消去", Some("消去"), Some("消去")),
            ("アンインストール", Some("アンインストール"), Some("アンインストール")),
            ("ゴミ箱を空にする", Some("ゴミ箱を空にする"), Some("ゴミ箱を空にする")),
            ("ｺﾞﾐ箱を空にする", Some("ゴミ箱を空にする"), Some("ゴミ箱を空にする")),
            ("ゴミ箱", None, Some("ゴミ箱")),
            ("ディスクをフォーマット", None, Some("フォーマット")),
            ("保存", None, None),
            ("表示名を変更", None, None),
            ("取り消し", None, None),
        ]);
        intents(&[
            ("アカウントを削除して", Delete, true),
            ("このファイルを消して", Delete, true),
            ("ファイルを削除しないでください", Delete, false),
            ("何も消さないで", Delete, false),
            ("表示名を変更して", Delete, false),
            ("取り消して", Delete, false),
            ("このアプリをアンインストールして", Uninstall, true),
            ("ゴミ箱を空にして", Trash, true),
            ("USBメモリをフォーマットして", Format, true),
        ]);
        passwords(&[("パスワード", true), ("暗証番号を入力", true), ("ユーザー名", false), ("メールアドレス", false)]);
        judged("アカウントを削除", "アカウントを削除してください", "表示名を変更してください");
    }
}
