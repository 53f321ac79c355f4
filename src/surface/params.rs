//! Tool parameters as data: one table per tool gives the JSON Schema a client
//! sees, the validation a call goes through (with catalogued error codes),
//! the defaults filled into `request.arguments`, and the parameter tables of
//! the rendered contract.

use serde_json::{Map, Value, json};

use super::catalog::{ErrorCode, ToolError, echo};

/// Longest string any parameter accepts, in characters (a query: `MAX_QUERY_CHARS`).
pub(crate) const MAX_STRING_CHARS: usize = 2_000;
/// Longest query, in characters: room for `MAX_QUERY_WORDS` words of an
/// abstract an agent pastes to find related passages.
pub(crate) const MAX_QUERY_CHARS: usize = 8_000;
/// Most items a list parameter accepts.
pub(crate) const MAX_LIST_ITEMS: usize = 20;

/// How much of each passage a search tool returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    Full,
    Snippet,
}

impl Detail {
    pub(crate) const ALL: [Detail; 2] = [Detail::Full, Detail::Snippet];
    /// The parameter's choices, in schema order (the first is the default).
    pub(crate) const CHOICES: &'static [&'static str] = &crate::text::names_of!(Self::ALL, 2);

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Detail::Full => "full",
            Detail::Snippet => "snippet",
        }
    }
}

impl std::str::FromStr for Detail {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::text::parse_named(&Self::ALL, Self::as_str, s, "detail")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A non-empty string of at most `MAX_STRING_CHARS` characters.
    Text,
    /// A search query: a non-empty string of at most `MAX_QUERY_CHARS`
    /// characters (its words and phrases are bounded when it is parsed).
    Query,
    Integer {
        min: i64,
        max: i64,
    },
    Boolean,
    /// One of a fixed set of strings.
    Choice(&'static [&'static str]),
    /// An array of non-empty strings.
    TextList,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefaultValue {
    None,
    Integer(i64),
    Boolean(bool),
    Text(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub(crate) default: DefaultValue,
    pub(crate) description: &'static str,
}

impl Kind {
    /// Longest string of this kind, in characters.
    pub(crate) const fn max_chars(self) -> usize {
        match self {
            Kind::Query => MAX_QUERY_CHARS,
            _ => MAX_STRING_CHARS,
        }
    }
}

impl Param {
    pub(crate) const fn required(name: &'static str, kind: Kind, description: &'static str) -> Self {
        Self { name, kind, required: true, default: DefaultValue::None, description }
    }

    pub(crate) const fn optional(name: &'static str, kind: Kind, description: &'static str) -> Self {
        Self { name, kind, required: false, default: DefaultValue::None, description }
    }

    pub(crate) const fn with_default(self, default: DefaultValue) -> Self {
        Self { default, ..self }
    }

    pub(crate) fn default_value(&self) -> Option<Value> {
        match self.default {
            DefaultValue::None => None,
            DefaultValue::Integer(i) => Some(json!(i)),
            DefaultValue::Boolean(b) => Some(json!(b)),
            DefaultValue::Text(t) => Some(json!(t)),
        }
    }

    /// The JSON type name, for messages and docs.
    pub(crate) fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Text | Kind::Query | Kind::Choice(_) => "string",
            Kind::Integer { .. } => "integer",
            Kind::Boolean => "boolean",
            Kind::TextList => "array of strings",
        }
    }

    fn schema(&self) -> Value {
        let mut s = Map::new();
        match self.kind {
            Kind::Text | Kind::Query => {
                s.insert("type".into(), json!("string"));
                s.insert("maxLength".into(), json!(self.kind.max_chars()));
            }
            Kind::Integer { min, max } => {
                s.insert("type".into(), json!("integer"));
                s.insert("minimum".into(), json!(min));
                s.insert("maximum".into(), json!(max));
            }
            Kind::Boolean => {
                s.insert("type".into(), json!("boolean"));
            }
            Kind::Choice(values) => {
                s.insert("type".into(), json!("string"));
                s.insert("enum".into(), json!(values));
            }
            Kind::TextList => {
                s.insert("type".into(), json!("array"));
                s.insert("items".into(), json!({"type": "string", "maxLength": MAX_STRING_CHARS}));
                s.insert("maxItems".into(), json!(MAX_LIST_ITEMS));
            }
        }
        s.insert("description".into(), json!(self.description));
        if let Some(default) = self.default_value() {
            s.insert("default".into(), default);
        }
        Value::Object(s)
    }
}

/// The input schema of a tool: closed (`additionalProperties: false`).
pub fn input_schema(params: &[Param]) -> Map<String, Value> {
    let properties: Map<String, Value> = params.iter().map(|p| (p.name.to_owned(), p.schema())).collect();
    let required: Vec<&str> = params.iter().filter(|p| p.required).map(|p| p.name).collect();
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

fn invalid(param: &Param, got: &Value) -> ToolError {
    ToolError::new(
        ErrorCode::InvalidArgument,
        format!("`{}` must be {}, got {}", param.name, article(param.type_name()), json_type(got)),
    )
}

fn article(type_name: &str) -> String {
    if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) { format!("an {type_name}") } else { format!("a {type_name}") }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn check_text(name: &str, text: &str, limit: usize) -> Result<(), ToolError> {
    if text.trim().is_empty() {
        return Err(ToolError::new(ErrorCode::EmptyArgument, format!("`{name}` must not be empty")));
    }
    let chars = text.chars().count();
    if chars > limit {
        return Err(ToolError::new(
            ErrorCode::ArgumentTooLong,
            format!("`{name}` has {chars} characters; the limit is {limit}"),
        ));
    }
    Ok(())
}

fn check(param: &Param, value: Value) -> Result<Value, ToolError> {
    match param.kind {
        Kind::Text | Kind::Query => {
            let Value::String(text) = &value else { return Err(invalid(param, &value)) };
            check_text(param.name, text, param.kind.max_chars())?;
            Ok(value)
        }
        Kind::Integer { min, max } => {
            let Some(n) = value.as_i64() else {
                // A huge integer is out of range, not of the wrong type.
                if value.as_u64().is_some() {
                    return Err(out_of_range(param, min, max, &value));
                }
                return Err(invalid(param, &value));
            };
            if n < min || n > max {
                return Err(out_of_range(param, min, max, &value));
            }
            Ok(value)
        }
        Kind::Boolean => match value {
            Value::Bool(_) => Ok(value),
            other => Err(invalid(param, &other)),
        },
        Kind::Choice(values) => {
            let Value::String(text) = &value else { return Err(invalid(param, &value)) };
            if !values.contains(&text.as_str()) {
                return Err(ToolError::new(
                    ErrorCode::InvalidArgument,
                    format!("`{}` must be one of {}, got \"{}\"", param.name, values.join(", "), echo(text)),
                ));
            }
            Ok(value)
        }
        Kind::TextList => {
            // Models often send an array as its JSON text; decode that once.
            let value = match value {
                Value::String(text) if text.trim_start().starts_with('[') => {
                    serde_json::from_str::<Value>(&text).map_err(|_| invalid(param, &Value::String(text.clone())))?
                }
                other => other,
            };
            let Value::Array(items) = &value else { return Err(invalid(param, &value)) };
            if items.len() > MAX_LIST_ITEMS {
                return Err(ToolError::new(
                    ErrorCode::OutOfRange,
                    format!("`{}` has {} items; the limit is {MAX_LIST_ITEMS}", param.name, items.len()),
                ));
            }
            for item in items {
                let Value::String(text) = item else {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArgument,
                        format!("`{}` must be an array of strings, found {}", param.name, json_type(item)),
                    ));
                };
                check_text(param.name, text, MAX_STRING_CHARS)?;
            }
            Ok(value)
        }
    }
}

fn out_of_range(param: &Param, min: i64, max: i64, got: &Value) -> ToolError {
    ToolError::new(ErrorCode::OutOfRange, format!("`{}` must be between {min} and {max}, got {got}", param.name))
}

/// Checks `arguments` against `params` and returns them with defaults filled
/// in. Errors name the parameter and what was expected.
pub(crate) fn validate(
    params: &[Param],
    arguments: Option<&Map<String, Value>>,
) -> Result<Map<String, Value>, ToolError> {
    let empty = Map::new();
    let arguments = arguments.unwrap_or(&empty);
    let mut unknown: Vec<&str> =
        arguments.keys().map(String::as_str).filter(|k| !params.iter().any(|p| p.name == *k)).collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        // A message names a few of them: 2,000 unknown keys must not make a 2,000-name message.
        const NAMED: usize = 5;
        let mut names: Vec<String> = unknown.iter().take(NAMED).map(|k| format!("`{}`", echo(k))).collect();
        if unknown.len() > NAMED {
            names.push(format!("and {} more", unknown.len() - NAMED));
        }
        let known: Vec<&str> = params.iter().map(|p| p.name).collect();
        return Err(ToolError::new(
            ErrorCode::UnknownParameter,
            format!("unknown parameter {}; this tool accepts: {}", names.join(", "), known.join(", ")),
        ));
    }
    let mut out = Map::new();
    for param in params {
        match arguments.get(param.name) {
            // null means "not given", as many clients send it for optional fields.
            None | Some(Value::Null) => {
                if param.required {
                    return Err(ToolError::new(
                        ErrorCode::MissingParameter,
                        format!("`{}` is required ({})", param.name, param.type_name()),
                    ));
                }
                if let Some(default) = param.default_value() {
                    out.insert(param.name.to_owned(), default);
                }
            }
            Some(value) => {
                out.insert(param.name.to_owned(), check(param, value.clone())?);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: &[Param] = &[
        Param::required("query", Kind::Text, "q"),
        Param::optional("top_k", Kind::Integer { min: 1, max: 50 }, "k").with_default(DefaultValue::Integer(10)),
        Param::optional("mode", Kind::Choice(&["a", "b"]), "m").with_default(DefaultValue::Text("a")),
        Param::optional("ids", Kind::TextList, "ids"),
        Param::optional("flag", Kind::Boolean, "f").with_default(DefaultValue::Boolean(false)),
    ];

    fn code(args: Value) -> ErrorCode {
        validate(PARAMS, args.as_object()).unwrap_err().code
    }

    #[test]
    fn defaults_are_filled() {
        let out = validate(PARAMS, json!({"query": "x"}).as_object()).unwrap();
        assert_eq!(Value::Object(out), json!({"query": "x", "top_k": 10, "mode": "a", "flag": false}));
    }

    #[test]
    fn each_bad_input_has_its_code() {
        assert_eq!(code(json!({"query": "x", "nope": 1})), ErrorCode::UnknownParameter);
        assert_eq!(code(json!({})), ErrorCode::MissingParameter);
        assert_eq!(code(json!({"query": 3})), ErrorCode::InvalidArgument);
        assert_eq!(code(json!({"query": "x", "top_k": "5"})), ErrorCode::InvalidArgument);
        assert_eq!(code(json!({"query": "x", "top_k": 51})), ErrorCode::OutOfRange);
        assert_eq!(code(json!({"query": "x", "top_k": 0})), ErrorCode::OutOfRange);
        assert_eq!(code(json!({"query": "x", "top_k": u64::MAX})), ErrorCode::OutOfRange);
        assert_eq!(code(json!({"query": "x", "top_k": 2.5})), ErrorCode::InvalidArgument);
        assert_eq!(code(json!({"query": "  "})), ErrorCode::EmptyArgument);
        assert_eq!(code(json!({"query": "x".repeat(MAX_STRING_CHARS + 1)})), ErrorCode::ArgumentTooLong);
        assert_eq!(code(json!({"query": "x", "mode": "c"})), ErrorCode::InvalidArgument);
        assert_eq!(code(json!({"query": "x", "ids": [1]})), ErrorCode::InvalidArgument);
        assert_eq!(code(json!({"query": "x", "ids": "not json"})), ErrorCode::InvalidArgument);
        assert_eq!(code(json!({"query": "x", "flag": "true"})), ErrorCode::InvalidArgument);
    }

    #[test]
    fn many_unknown_parameters_make_a_short_message() {
        let many: Map<String, Value> = (0..2000).map(|i| (format!("k{i:04}"), json!(1))).collect();
        let error = validate(PARAMS, Some(&many)).unwrap_err();
        assert_eq!(error.code, ErrorCode::UnknownParameter);
        assert!(error.message.contains("`k0000`") && error.message.contains("and 1995 more"), "{}", error.message);
        assert!(error.message.len() < 300, "{}", error.message.len());
    }

    #[test]
    fn an_array_sent_as_json_text_is_decoded_once() {
        let out = validate(PARAMS, json!({"query": "x", "ids": "[\"a\", \"b\"]"}).as_object()).unwrap();
        assert_eq!(out["ids"], json!(["a", "b"]));
        // Twice-encoded is not decoded twice.
        assert_eq!(code(json!({"query": "x", "ids": "\"[\\\"a\\\"]\""})), ErrorCode::InvalidArgument);
    }

    #[test]
    fn multibyte_strings_are_counted_in_characters() {
        assert!(validate(PARAMS, json!({"query": "ü".repeat(MAX_STRING_CHARS)}).as_object()).is_ok());
    }

    #[test]
    fn schema_is_closed() {
        let schema = input_schema(PARAMS);
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(schema["required"], json!(["query"]));
    }
}
