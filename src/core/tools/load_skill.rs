//! `load_skill`: hand the model one registered skill's full instructions by exact name, and
//! the Skills System section of the system prompt that lists them.
//!
//! The registry itself is phpClaw's (PHP); the binding reads it and this module decides the
//! answers: the guard's subject "read a skill", only the `name` argument accepted, an
//! UNKNOWN_SKILL error listing the registered names, the success envelope with mode
//! `load_skill`.

use super::{error, success};
use crate::core::value::{Array, Value};

/// The tool name.
pub const NAME: &str = "load_skill";

/// The description advertised to the model.
pub const DESCRIPTION: &str =
    "Read the full instructions of a skill listed in the Skills System section of the system prompt.";

/// The FORBIDDEN message's subject.
pub const SUBJECT: &str = "read a skill";

/// The only accepted argument.
pub const ACCEPTED: [&str; 1] = ["name"];

/// The error code for a name no skill has.
pub const UNKNOWN_SKILL: &str = "UNKNOWN_SKILL";

/// Domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["skills"],
    &["skill", "instructions", "workflow"],
    &["read skill instructions"],
    &["load the skill named in the system prompt"],
];

/// `inputSchema()`.
pub fn input_schema() -> Value {
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([(
                "name",
                Value::from_pairs([("type", "string"), ("description", "Exact skill name")]),
            )]),
        ),
        ("required", Value::list(["name"])),
    ])
}

const SECTION_HEAD: &str = "\n\n## Skills System\n\nYou have access to a skills library that provides specialized capabilities and domain knowledge.\n\n**Available Skills:**\n\n";

const SECTION_TAIL: &str = concat!(
    "\n\n**How to Use Skills (Progressive Disclosure):**\n\nSkills follow a **progressive disclosure** pattern - you see their name and description above, but only read full instructions when needed:\n\n",
    "1. **Recognize when a skill applies**: Check if the user's task matches a skill's description\n",
    "2. **Read the skill's full instructions**: Call `load_skill` with the skill name shown in the skill list above.\n",
    "3. **Follow the skill's instructions**: The skill contains step-by-step workflows, best practices, and examples\n\n",
    "**When to Use Skills:**\n\n- User's request matches a skill's domain (e.g., \"research X\" -> web-research skill)\n- You need specialized knowledge or structured workflows\n- A skill provides proven patterns for complex tasks\n\n",
    "**Example Workflow:**\n\nUser: \"Can you research the latest developments in quantum computing?\"\n\n",
    "1. Check available skills -> See \"web-research\" skill\n2. Read the full skill: `load_skill(name=\"web-research\")`\n3. Follow the skill's research workflow (search -> organize -> synthesize)\n\n",
    "Remember: Skills make you more capable and consistent. When in doubt, check if a skill exists for the task!",
);

/// The Skills System section for `(name, description)` pairs; empty when there are none.
pub fn system_prompt_section(skills: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    if skills.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<Vec<u8>> = Vec::with_capacity(skills.len() * 2);
    for (name, description) in skills {
        lines.push([b"- **".as_slice(), name, b"**: ", description].concat());
        lines.push(
            [
                b"  -> Call `load_skill` with name `".as_slice(),
                name,
                b"` for full instructions",
            ]
            .concat(),
        );
    }
    let mut out = SECTION_HEAD.as_bytes().to_vec();
    out.extend_from_slice(&lines.join(&b'\n'));
    out.extend_from_slice(SECTION_TAIL.as_bytes());
    out
}

/// The UNKNOWN_SKILL envelope for `name`, listing `available`.
pub fn unknown_skill(name: &[u8], available: Value) -> Value {
    let message = [
        b"No skill is named \"".as_slice(),
        name,
        b"\". Call load_skill with one of the available names.",
    ]
    .concat();
    let context = Array::from_pairs([("available", available)]);
    error(UNKNOWN_SKILL, &message, Some(&context))
}

/// The success envelope for a found skill.
pub fn found(name: Value, instructions: Value) -> Value {
    success(
        Value::from_pairs([("name", name), ("instructions", instructions)]),
        Value::from_pairs([("mode", NAME)]),
        Value::list(Vec::<Value>::new()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tools::encode;

    #[test]
    fn section_is_empty_without_skills_and_lists_each() {
        assert!(system_prompt_section(&[]).is_empty());
        let s = system_prompt_section(&[(b"a".to_vec(), b"d".to_vec())]);
        let s = String::from_utf8(s).unwrap();
        assert!(s.starts_with("\n\n## Skills System\n"));
        assert!(s.contains("**Available Skills:**\n\n- **a**: d\n  -> Call `load_skill` with name `a` for full instructions\n\n**How"));
        assert!(s.ends_with("check if a skill exists for the task!"));
    }

    #[test]
    fn envelopes() {
        let e = encode::<()>(&unknown_skill(b"x", Value::list(["a"]))).unwrap();
        assert_eq!(
            String::from_utf8(e).unwrap(),
            r#"{"success":false,"error":{"code":"UNKNOWN_SKILL","message":"No skill is named \"x\". Call load_skill with one of the available names.","available":["a"]},"data":null,"meta":{"mode":"error"},"warnings":[]}"#
        );
        let ok = encode::<()>(&found(Value::str("a"), Value::str("do"))).unwrap();
        assert_eq!(
            String::from_utf8(ok).unwrap(),
            r#"{"success":true,"data":{"name":"a","instructions":"do"},"meta":{"mode":"load_skill"},"warnings":[]}"#
        );
    }
}
