//! A Parquet file's top-level columns and their types, read from the footer alone.

use std::fs::File;
use std::path::Path;

use parquet::basic::{ConvertedType, LogicalType, Repetition, TimeUnit, Type as Physical};
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::schema::types::Type;

/// One column: its name and its type, spelled as Polars spells data types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Column {
    /// The column's name.
    pub name: String,
    /// Its type, as Polars spells it (`Int64`, `String`, `Date`).
    pub type_name: String,
}

/// The top-level columns of the Parquet file at `path`, in file order. The error is a short
/// reason for the user.
pub(crate) fn read_columns(path: &Path) -> Result<Vec<Column>, String> {
    let file = File::open(path).map_err(|error| error.to_string())?;
    let metadata = ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .map_err(|error| format!("unreadable footer: {error}"))?;
    let root = metadata.file_metadata().schema_descr().root_schema();
    Ok(root
        .get_fields()
        .iter()
        .map(|field| Column {
            name: field.name().to_owned(),
            type_name: type_name(field),
        })
        .collect())
}

fn type_name(field: &Type) -> String {
    let info = field.get_basic_info();
    let repeated = info.has_repetition() && info.repetition() == Repetition::REPEATED;
    let name = match field {
        Type::GroupType { fields, .. } => group_name(field, fields),
        Type::PrimitiveType {
            physical_type,
            precision,
            scale,
            ..
        } => primitive_name(field, *physical_type, *precision, *scale),
    };
    // A repeated field outside a LIST annotation is a list of its type (the legacy layout).
    if repeated {
        format!("List({name})")
    } else {
        name
    }
}

fn group_name(field: &Type, fields: &[parquet::schema::types::TypePtr]) -> String {
    let info = field.get_basic_info();
    let is_list = matches!(info.logical_type_ref(), Some(LogicalType::List))
        || info.converted_type() == ConvertedType::LIST;
    let is_map = matches!(info.logical_type_ref(), Some(LogicalType::Map))
        || matches!(
            info.converted_type(),
            ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE
        );
    if is_list {
        // LIST wraps a repeated group ("list") around the element, or repeats the element itself.
        let element = match fields.first().map(AsRef::as_ref) {
            Some(Type::GroupType {
                fields: inner,
                basic_info,
            }) if inner.len() == 1 && basic_info.logical_type_ref().is_none() => {
                type_name_unrepeated(&inner[0])
            }
            Some(other) => type_name_unrepeated(other),
            None => "Null".to_owned(),
        };
        return format!("List({element})");
    }
    if is_map {
        return "List(Struct(key, value))".to_owned();
    }
    let names: Vec<&str> = fields.iter().map(|field| field.name()).collect();
    format!("Struct({})", names.join(", "))
}

fn type_name_unrepeated(field: &Type) -> String {
    let name = type_name(field);
    let info = field.get_basic_info();
    if info.has_repetition() && info.repetition() == Repetition::REPEATED {
        name.strip_prefix("List(")
            .and_then(|rest| rest.strip_suffix(')'))
            .map_or(name.clone(), ToOwned::to_owned)
    } else {
        name
    }
}

fn unit_name(unit: &TimeUnit) -> &'static str {
    match unit {
        TimeUnit::MILLIS => "ms",
        TimeUnit::MICROS => "us",
        TimeUnit::NANOS => "ns",
    }
}

fn primitive_name(field: &Type, physical: Physical, precision: i32, scale: i32) -> String {
    let info = field.get_basic_info();
    if let Some(logical) = info.logical_type_ref() {
        let name = match logical {
            LogicalType::String | LogicalType::Enum | LogicalType::Json => {
                Some("String".to_owned())
            }
            LogicalType::Integer(int) => Some(format!(
                "{}Int{}",
                if int.is_signed { "" } else { "U" },
                int.bit_width
            )),
            LogicalType::Decimal(decimal) => {
                Some(format!("Decimal({}, {})", decimal.precision, decimal.scale))
            }
            LogicalType::Date => Some("Date".to_owned()),
            LogicalType::Time(_) => Some("Time".to_owned()),
            LogicalType::Timestamp(stamp) => Some(if stamp.is_adjusted_to_u_t_c {
                format!("Datetime({}, UTC)", unit_name(&stamp.unit))
            } else {
                format!("Datetime({})", unit_name(&stamp.unit))
            }),
            LogicalType::Float16 => Some("Float16".to_owned()),
            _ => None,
        };
        if let Some(name) = name {
            return name;
        }
    }
    let converted = match info.converted_type() {
        ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON => Some("String"),
        ConvertedType::DATE => Some("Date"),
        ConvertedType::TIME_MILLIS | ConvertedType::TIME_MICROS => Some("Time"),
        ConvertedType::TIMESTAMP_MILLIS => Some("Datetime(ms)"),
        ConvertedType::TIMESTAMP_MICROS => Some("Datetime(us)"),
        ConvertedType::INT_8 => Some("Int8"),
        ConvertedType::INT_16 => Some("Int16"),
        ConvertedType::INT_32 => Some("Int32"),
        ConvertedType::INT_64 => Some("Int64"),
        ConvertedType::UINT_8 => Some("UInt8"),
        ConvertedType::UINT_16 => Some("UInt16"),
        ConvertedType::UINT_32 => Some("UInt32"),
        ConvertedType::UINT_64 => Some("UInt64"),
        ConvertedType::DECIMAL => return format!("Decimal({precision}, {scale})"),
        _ => None,
    };
    if let Some(name) = converted {
        return name.to_owned();
    }
    match physical {
        Physical::BOOLEAN => "Boolean",
        Physical::INT32 => "Int32",
        Physical::INT64 => "Int64",
        Physical::INT96 => "Datetime(ns)",
        Physical::FLOAT => "Float32",
        Physical::DOUBLE => "Float64",
        Physical::BYTE_ARRAY | Physical::FIXED_LEN_BYTE_ARRAY => "Binary",
    }
    .to_owned()
}
