//! Splits a command line as OSWorld's guest does (`shlex.split`, POSIX mode), for `/execute` and
//! `/setup/launch` given a string without `shell`.

/// Why a command line could not be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    #[error("no closing quotation")]
    NoClosingQuotation,
    #[error("no escaped character after a final backslash")]
    NoEscapedCharacter,
}

/// Python's `shlex` splits on these only (not on other Unicode spaces).
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Words of `line`: split on spaces, tabs and line ends; single quotes keep everything literally; double quotes keep
/// everything but `\"` and `\\`; a backslash outside quotes takes the next character as it is.
pub fn split(line: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    // A word exists once anything (even an empty pair of quotes) started it.
    let mut started = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if is_blank(c) => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SplitError::NoClosingQuotation),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(SplitError::NoClosingQuotation),
                        },
                        Some(c) => word.push(c),
                        None => return Err(SplitError::NoClosingQuotation),
                    }
                }
            }
            '\\' => {
                started = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(SplitError::NoEscapedCharacter),
                }
            }
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

/// `word` quoted so that [`split`] gives it back as one word (Python's `shlex.quote`).
pub fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\"'\"'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn splits_as_python_does() {
        let s = |l: &str| split(l).expect("splits");
        assert_eq!(s("libreoffice --calc ~/a b.xlsx"), ["libreoffice", "--calc", "~/a", "b.xlsx"]);
        assert_eq!(s("echo 'a  b' \"c \\\" d\" e\\ f"), ["echo", "a  b", "c \" d", "e f"]);
        assert_eq!(s("a \"\\n\" ''"), ["a", "\\n", ""]);
        assert_eq!(s("  "), Vec::<String>::new());
        assert_eq!(s("x'y'\"z\""), ["xyz"]);
        assert_eq!(split("echo 'open"), Err(SplitError::NoClosingQuotation));
        assert_eq!(split("echo \"open"), Err(SplitError::NoClosingQuotation));
        assert_eq!(split("echo \\"), Err(SplitError::NoEscapedCharacter));
    }

    proptest! {
        /// Any words, quoted and joined, split back into the same words.
        #[test]
        fn quoted_words_split_back(words in proptest::collection::vec(any::<String>(), 0..6)) {
            let line = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
            prop_assert_eq!(split(&line).expect("a quoted line splits"), words);
        }

        /// Any input splits or is refused, never panics; words never hold unquoted whitespace when
        /// the input had no quotes or backslashes.
        #[test]
        fn any_line_splits_or_is_refused(line in ".{0,60}") {
            if let Ok(words) = split(&line) {
                if !line.contains(['\'', '"', '\\']) {
                    prop_assert!(words.iter().all(|w| !w.is_empty() && !w.chars().any(is_blank)));
                }
            }
        }
    }
}
