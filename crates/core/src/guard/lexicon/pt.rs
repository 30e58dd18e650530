//! Portuguese (Brazil and Portugal): inflected verbs and nouns, matched from the start of a word.

use super::{broad, marker, within, word, word_start, Lexicon, Negation};
use crate::guard::destructive::RemovalKind::{Delete, Format, Trash, Uninstall};

pub(super) const LEXICON: Lexicon = Lexicon {
    name: "Portuguese",
    markers: &[
        marker(within("esvaziar a lixeira"), Trash),
        marker(within("esvaziar lixeira"), Trash),
        marker(within("esvaziar o lixo"), Trash),
        marker(within("mover para a lixeira"), Trash),
        marker(within("mover para o lixo"), Trash),
        marker(word_start("desinstal"), Uninstall),
        // Not "exclusivo" (exclusive) or the English "exclude".
        marker(word_start("exclui"), Delete),
        marker(word_start("exclua"), Delete),
        marker(word_start("exclusão"), Delete),
        marker(word_start("apag"), Delete),
        // Not "removível" or the English "removable".
        marker(word_start("remover"), Delete),
        marker(word("remova"), Delete),
        marker(word_start("removid"), Delete),
        broad(word_start("lixeira"), Trash),
        broad(word_start("lixo"), Trash),
    ],
    passwords: &[within("senha"), within("palavra-passe"), within("palavra passe")],
    intents: &[
        (Delete, word_start("exclui")),
        (Delete, word_start("exclua")),
        (Delete, word_start("exclusão")),
        (Delete, word_start("apag")),
        (Delete, word_start("remov")),
        (Delete, word_start("elimin")),
        (Trash, word_start("lixeira")),
        (Trash, word_start("lixo")),
        (Uninstall, word_start("desinstal")),
        (Format, word_start("formata")),
    ],
    negation: Negation { words_before: &["não", "nao", "nunca", "jamais", "sem", "nem", "nada"], ..Negation::NONE },
};

#[cfg(test)]
mod tests {
    use super::super::testing::{intents, judged, labels, passwords};
    use crate::guard::destructive::RemovalKind::*;

    #[test]
    fn portuguese() {
        labels(&[
            ("Excluir conta", Some("exclui"), Some("exclui")),
            ("Exclude from search", None, None),
            ("Apagar", Some("apag"), Some("apag")),
            // English lists "remove" first.
            ("Remover", Some("remove"), Some("remove")),
            ("Desinstalar", Some("desinstal"), Some("desinstal")),
            ("Esvaziar a lixeira", Some("esvaziar a lixeira"), Some("esvaziar a lixeira")),
            ("Lixeira", None, Some("lixeira")),
            ("Formatar disco", None, Some("format")),
            ("Conteúdo exclusivo", None, None),
            ("Removable disk", None, None),
            ("Salvar", None, None),
            ("Alterar nome de exibição", None, None),
        ]);
        intents(&[
            ("exclua minha conta", Delete, true),
            ("apague o arquivo", Delete, true),
            ("não apague nada", Delete, false),
            ("altere meu nome de exibição", Delete, false),
            ("veja o conteúdo exclusivo", Delete, false),
            ("exclude weekends from the search", Delete, false),
            ("desinstale o zoom", Uninstall, true),
            ("esvazie a lixeira", Trash, true),
            ("formate o pen drive", Format, true),
        ]);
        passwords(&[("Senha", true), ("Palavra-passe", true), ("Nome de usuário", false)]);
        judged("Excluir conta", "exclua minha conta", "altere meu nome de exibição");
    }
}
