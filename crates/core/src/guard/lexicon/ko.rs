//! Korean. Words are spaced, but particles attach to them ("계정을 삭제"), so terms fit anywhere.
//! Negation follows the verb ("삭제하지 마", "삭제 안 해").

use super::{broad, marker, within, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Korean",
    markers: &[
        marker(within("휴지통 비우기"), Trash),
        marker(within("휴지통으로 이동"), Trash),
        marker(within("휴지통에 버리기"), Trash),
        marker(within("설치 제거"), Uninstall),
        marker(within("제거"), Delete),
        marker(within("삭제"), Delete),
        broad(within("휴지통"), Trash),
        broad(within("지우기"), Delete),
        broad(within("포맷"), Format),
        broad(within("초기화"), Format),
    ],
    passwords: &[within("비밀번호"), within("패스워드"), within("암호").except(&["암호화"])],
    intents: &[
        (Delete, within("삭제")),
        (Delete, within("제거")),
        (Delete, within("지워")),
        (Delete, within("지우")),
        (Trash, within("휴지통")),
        (Uninstall, within("설치 제거")),
        (Uninstall, within("제거")),
        (Uninstall, within("삭제")),
        (Format, within("포맷")),
        (Format, within("초기화")),
    ],
    negation: Negation {
        just_after: &[
            "지 마", "지마", "지 말", "지말", "지 않", "지않", "안 해", "안해", "안 하", "안하", "금지", "말아", "말고",
        ],
        ..Negation::NONE
    },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn korean() {
        labels(&[
            ("계정 삭제", Some("삭제"), Some("삭제")),
            ("삭 제", Some("삭제"), Some("삭제")),
            ("제거", Some("제거"), Some("제거")),
            ("설치 제거", Some("설치 제거"), Some("설치 제거")),
            ("휴지통 비우기", Some("휴지통 비우기"), Some("휴지통 비우기")),
            ("휴지통", None, Some("휴지통")),
            ("디스크 포맷", None, Some("포맷")),
            ("저장", None, None),
            ("표시 이름 변경", None, None),
        ]);
        intents(&[
            ("내 계정을 삭제해 줘", Delete, true),
            ("이 파일 지워 줘", Delete, true),
            ("파일을 삭제하지 마", Delete, false),
            ("아무것도 지우지 마세요", Delete, false),
            ("삭제 안 해도 돼", Delete, false),
            ("표시 이름을 바꿔 줘", Delete, false),
            ("이 앱을 제거해 줘", Uninstall, true),
            ("휴지통을 비워 줘", Trash, true),
            ("USB를 포맷해 줘", Format, true),
        ]);
        passwords(&[
            ("비밀번호", true),
            ("비밀번호 확인", true),
            ("암호 입력", true),
            ("암호화 설정", false),
            ("사용자 이름", false),
        ]);
        judged("계정 삭제", "내 계정을 삭제해 줘", "표시 이름을 바꿔 줘");
    }
}
