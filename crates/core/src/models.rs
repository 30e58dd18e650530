//! Which well-known models accept images, by name.
//!
//! The capability gate needs to know whether the main model can see. Servers do not always say (an
//! OpenAI-compatible `/v1/models` lists names only), so a table of model families is the fallback. Names
//! arrive in many spellings — Ollama tags (`qwen2.5vl:7b`), Hugging Face repos
//! (`Qwen/Qwen2.5-VL-7B-Instruct`), GGUF files (`Qwen3-14B-Q4_K_M.gguf`) — so they are compacted
//! first: lowercase, the repo owner and file extension dropped, only letters and digits kept
//! (`qwen25vl7b`, `qwen25vl7binstruct`). Rules are checked in order and the first match wins, so specific
//! rules (a text-only size of a vision family) come before general ones. An unknown name is `None`: the
//! caller fails closed.

use crate::engine::Vision;

/// One family of models: every fragment must occur in the compacted name.
struct Rule {
    fragments: &'static [&'static str],
    vision: bool,
}

const fn sees(fragments: &'static [&'static str]) -> Rule {
    Rule { fragments, vision: true }
}

const fn blind(fragments: &'static [&'static str]) -> Rule {
    Rule { fragments, vision: false }
}

/// Ordered: the first matching rule decides.
const RULES: &[Rule] = &[
    // Vision variants of text families, before their text-only parents.
    sees(&["qwen", "vl"]),
    sees(&["qvq"]),
    sees(&["qwen", "omni"]),
    sees(&["llama", "vision"]),
    sees(&["llama4"]),
    sees(&["llava"]),
    sees(&["minicpmv"]),
    sees(&["minicpmo"]),
    sees(&["moondream"]),
    sees(&["granite", "vision"]),
    sees(&["pixtral"]),
    sees(&["mistralsmall31"]),
    sees(&["mistralsmall32"]),
    sees(&["mistralmedium3"]),
    sees(&["internvl"]),
    sees(&["phi35vision"]),
    sees(&["phi4multimodal"]),
    sees(&["kimivl"]),
    sees(&["glm45v"]),
    sees(&["glm41v"]),
    sees(&["glm4v"]),
    sees(&["uitars"]),
    sees(&["smolvlm"]),
    sees(&["idefics"]),
    sees(&["paligemma"]),
    sees(&["cogvlm"]),
    sees(&["deepseekvl"]),
    sees(&["holo1"]),
    // Gemma 3 sees from 4B up; the 1B and 270M models are text-only.
    blind(&["gemma31b"]),
    blind(&["gemma3270m"]),
    sees(&["gemma3"]),
    // Qwen 3.5 is natively multimodal at every size.
    sees(&["qwen35"]),
    // Hosted families.
    sees(&["gpt4o"]),
    sees(&["gpt41"]),
    sees(&["gpt5"]),
    sees(&["claude"]),
    sees(&["gemini"]),
    // Text-only families.
    blind(&["qwen3"]),
    blind(&["qwen25"]),
    blind(&["qwen2"]),
    blind(&["qwq"]),
    blind(&["llama3"]),
    blind(&["llama2"]),
    blind(&["codellama"]),
    blind(&["tinyllama"]),
    blind(&["mistral"]),
    blind(&["mixtral"]),
    blind(&["codestral"]),
    blind(&["devstral"]),
    blind(&["phi3"]),
    blind(&["phi4"]),
    blind(&["deepseek"]),
    blind(&["gemma2"]),
    blind(&["gptoss"]),
    blind(&["smollm"]),
    blind(&["granite"]),
    blind(&["commandr"]),
    blind(&["starcoder"]),
];

/// The name reduced to lowercase letters and digits, without the repo owner or a `.gguf` extension:
/// `Qwen/Qwen2.5-VL-7B-Instruct` → `qwen25vl7binstruct`.
pub fn compact_model_name(name: &str) -> String {
    let lower = name.trim().to_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    let base = base.strip_suffix(".gguf").unwrap_or(base);
    base.chars().filter(|c| c.is_ascii_alphanumeric()).collect()
}

/// Whether a model known by `name` accepts images; `None` when the name is not in the table.
pub fn known_vision(name: &str) -> Option<bool> {
    let compact = compact_model_name(name);
    if compact.is_empty() {
        return None;
    }
    RULES.iter().find(|rule| rule.fragments.iter().all(|f| compact.contains(f))).map(|rule| rule.vision)
}

/// The gate's setting for a model name alone: known vision, known text-only, or unknown (fails closed).
pub fn vision_for_model(name: &str) -> Vision {
    match known_vision(name) {
        Some(true) => Vision::Capable,
        Some(false) => Vision::TextOnly { model: name.to_string() },
        None => Vision::Unknown { model: Some(name.to_string()) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vision_models_in_their_usual_spellings() {
        for name in [
            "qwen2.5vl:7b",
            "Qwen/Qwen2.5-VL-7B-Instruct",
            "qwen2.5-vl-72b-instruct",
            "Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf",
            "qwen3-vl:8b",
            "qwen3vl:30b",
            "Qwen/Qwen3-VL-30B-A3B-Instruct",
            "qwen3.5:9b",
            "Qwen/Qwen3.5-9B",
            "Qwen3.5-9B-Q4_K_M.gguf",
            "llama3.2-vision:11b",
            "meta-llama/Llama-3.2-11B-Vision-Instruct",
            "llama4:scout",
            "llava:13b",
            "llava-llama3",
            "minicpm-v:8b",
            "moondream",
            "gemma3:4b",
            "google/gemma-3-27b-it",
            "mistral-small3.1:24b",
            "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
            "granite3.2-vision",
            "ByteDance-Seed/UI-TARS-1.5-7B",
            "gpt-4o-mini",
            "claude-sonnet-4-5",
            "gemini-2.5-flash",
            "OpenGVLab/InternVL3-8B",
        ] {
            assert_eq!(known_vision(name), Some(true), "{name}");
        }
    }

    #[test]
    fn text_only_models_in_their_usual_spellings() {
        for name in [
            "qwen3:14b",
            "Qwen/Qwen3-14B",
            "Qwen3-14B-Q4_K_M.gguf",
            "qwen2.5:7b",
            "qwen2.5-coder:7b",
            "Qwen/Qwen2.5-7B-Instruct",
            "llama3.1:8b",
            "llama3.2:3b",
            "meta-llama/Llama-3.3-70B-Instruct",
            "mistral:7b",
            "mixtral:8x7b",
            "phi4:14b",
            "deepseek-r1:8b",
            "gemma2:9b",
            "gemma3:1b",
            "gpt-oss:20b",
        ] {
            assert_eq!(known_vision(name), Some(false), "{name}");
        }
    }

    #[test]
    fn unknown_names_stay_unknown() {
        for name in ["", "   ", "my-finetune", "foo:latest", "x/y/z.gguf", "35", "vl"] {
            assert_eq!(known_vision(name), None, "{name:?}");
        }
    }

    #[test]
    fn gate_settings_follow_the_table() {
        assert_eq!(vision_for_model("qwen2.5vl:7b"), Vision::Capable);
        assert_eq!(vision_for_model("qwen3:14b"), Vision::TextOnly { model: "qwen3:14b".into() });
        assert_eq!(vision_for_model("mystery"), Vision::Unknown { model: Some("mystery".into()) });
    }
}
