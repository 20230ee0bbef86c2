//! One month of web orders as a Parquet file, written with the `parquet` crate's column
//! writers (no Arrow, no compression).

use std::path::Path;
use std::sync::Arc;

use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

use super::{Order, SampleError};

const SCHEMA: &str = "message orders {
    required int64 order_id;
    required int32 order_date (DATE);
    required binary region (STRING);
    required double amount;
}";

const SCHEMA_WITH_CHANNEL: &str = "message orders {
    required int64 order_id;
    required int32 order_date (DATE);
    required binary region (STRING);
    required double amount;
    required binary channel (STRING);
}";

/// Writes `orders` to `path`; `with_channel` adds the `channel` column.
pub(super) fn write_orders(
    path: &Path,
    orders: &[Order],
    with_channel: bool,
) -> Result<(), SampleError> {
    write(path, orders, with_channel).map_err(|error| SampleError::Parquet {
        path: path.to_path_buf(),
        detail: error.to_string(),
    })
}

fn write(path: &Path, orders: &[Order], with_channel: bool) -> parquet::errors::Result<()> {
    let message = if with_channel {
        SCHEMA_WITH_CHANNEL
    } else {
        SCHEMA
    };
    let schema = Arc::new(parse_message_type(message)?);
    let file = std::fs::File::create(path)?;
    let mut writer =
        SerializedFileWriter::new(file, schema, Arc::new(WriterProperties::builder().build()))?;
    let mut group = writer.next_row_group()?;
    let mut index = 0;
    while let Some(mut column) = group.next_column()? {
        match index {
            0 => {
                let ids: Vec<i64> = orders.iter().map(|o| o.order_id).collect();
                column.typed::<Int64Type>().write_batch(&ids, None, None)?;
            }
            1 => {
                let days: Vec<i32> = orders.iter().map(|o| o.day).collect();
                column.typed::<Int32Type>().write_batch(&days, None, None)?;
            }
            2 => {
                let regions: Vec<ByteArray> =
                    orders.iter().map(|o| ByteArray::from(o.region)).collect();
                column
                    .typed::<ByteArrayType>()
                    .write_batch(&regions, None, None)?;
            }
            3 => {
                let amounts: Vec<f64> = orders.iter().map(|o| o.amount).collect();
                column
                    .typed::<DoubleType>()
                    .write_batch(&amounts, None, None)?;
            }
            _ => {
                let channels: Vec<ByteArray> =
                    orders.iter().map(|o| ByteArray::from(o.channel)).collect();
                column
                    .typed::<ByteArrayType>()
                    .write_batch(&channels, None, None)?;
            }
        }
        column.close()?;
        index += 1;
    }
    group.close()?;
    writer.close()?;
    Ok(())
}
