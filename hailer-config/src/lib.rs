//! hailer.toml: schema, discovery, precedence and validation.
