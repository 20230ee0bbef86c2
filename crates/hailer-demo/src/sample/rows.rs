//! The rows of the sample files, from a fixed seed: every run writes the same data.

use std::fmt::Write as _;

use super::REGIONS;

/// The products and their unit prices.
const PRODUCTS: [(&str, f64); 3] = [("Widget", 12.5), ("Gadget", 24.0), ("Gizmo", 7.25)];
/// How likely each region is to make a sale (North sells most, West least).
const REGION_WEIGHTS: [u64; 4] = [34, 24, 24, 18];
/// Days of Q1 2025, and sales per day.
const DAYS: [u32; 3] = [31, 28, 31];
const SALES_PER_DAY: u32 = 4;

/// One line of `sales.csv`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Sale {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// One of the four regions.
    pub region: &'static str,
    /// The product's name.
    pub product: &'static str,
    /// Units sold.
    pub units: u32,
    /// Price of one unit.
    pub unit_price: f64,
    /// `units * unit_price`, in cents to stay exact.
    pub amount_cents: u64,
}

/// One web order of a monthly file.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Order {
    /// Unique across the three months.
    pub order_id: i64,
    /// Days since 1970-01-01 (Parquet's DATE).
    pub day: i32,
    /// One of the four regions.
    pub region: &'static str,
    /// The order's total.
    pub amount: f64,
    /// `online` or `store`.
    pub channel: &'static str,
}

/// A small, fixed pseudo-random sequence (xorshift64*).
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number from `low` to `high`, both included.
    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    fn region(&mut self) -> &'static str {
        let total: u64 = REGION_WEIGHTS.iter().sum();
        let mut roll = self.next() % total;
        for (weight, (region, _, _)) in REGION_WEIGHTS.iter().zip(REGIONS) {
            if roll < *weight {
                return region;
            }
            roll -= weight;
        }
        REGIONS[0].0
    }
}

/// Days since 1970-01-01 of a date of 2025.
fn day_number(month: u32, day: u32) -> i32 {
    const JANUARY_1_2025: i32 = 20_089;
    let before: u32 = [0, 31, 59][(month - 1) as usize];
    JANUARY_1_2025 + (before + day - 1) as i32
}

/// The quarter's sales, day by day.
pub(super) fn sales() -> Vec<Sale> {
    let mut dice = Dice(0x9e37_79b9_7f4a_7c15);
    let mut sales = Vec::new();
    for (month, days) in (1..=3).zip(DAYS) {
        for day in 1..=days {
            for _ in 0..SALES_PER_DAY {
                let region = dice.region();
                let (product, unit_price) = PRODUCTS[(dice.next() % 3) as usize];
                let units = dice.between(1, 40) as u32;
                let price_cents = (unit_price * 100.0).round() as u64;
                sales.push(Sale {
                    date: format!("2025-{month:02}-{day:02}"),
                    region,
                    product,
                    units,
                    unit_price,
                    amount_cents: price_cents * u64::from(units),
                });
            }
        }
    }
    sales
}

/// `sales.csv`'s text.
pub(super) fn sales_csv(sales: &[Sale]) -> String {
    let mut text = String::from("date,region,product,units,unit_price,amount\n");
    for sale in sales {
        let _ = writeln!(
            text,
            "{},{},{},{},{:.2},{}.{:02}",
            sale.date,
            sale.region,
            sale.product,
            sale.units,
            sale.unit_price,
            sale.amount_cents / 100,
            sale.amount_cents % 100
        );
    }
    text
}

/// Revenue per region, in cents, in the order of [`REGIONS`].
pub(super) fn revenue_cents(sales: &[Sale]) -> [u64; 4] {
    let mut totals = [0u64; 4];
    for sale in sales {
        if let Some(at) = REGIONS.iter().position(|(name, _, _)| *name == sale.region) {
            totals[at] += sale.amount_cents;
        }
    }
    totals
}

/// The web orders of one month of 2025 (1 to 3); later months have more and larger orders.
pub(super) fn orders(month: u32) -> Vec<Order> {
    let mut dice = Dice(0x2545_f491_4f6c_dd1d ^ u64::from(month));
    let count = 100 + 12 * month as u64 + dice.between(0, 9);
    let days = DAYS[(month - 1) as usize];
    (0..count)
        .map(|n| {
            let cents = dice.between(1500, 9000) + 400 * u64::from(month);
            Order {
                order_id: i64::from(month) * 10_000 + n as i64 + 1,
                day: day_number(month, dice.between(1, u64::from(days)) as u32),
                region: dice.region(),
                amount: cents as f64 / 100.0,
                channel: if dice.next().is_multiple_of(3) {
                    "store"
                } else {
                    "online"
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_days_since_1970() {
        assert_eq!(day_number(1, 1), 20_089);
        assert_eq!(day_number(3, 31), 20_089 + 31 + 28 + 30);
    }

    #[test]
    fn the_data_is_the_same_every_time_and_north_leads() {
        assert_eq!(sales(), sales());
        assert_eq!(sales().len(), 360);
        let revenue = revenue_cents(&sales());
        let north = revenue[0];
        assert!(revenue.iter().all(|other| *other <= north), "{revenue:?}");
        assert!(orders(3).len() > orders(1).len());
    }
}
