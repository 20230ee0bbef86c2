//! One Python script from a notebook's cells: cells in the order their definitions and uses
//! demand, each under a `# cell <id>` line, and a map from every script line back to its cell.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use hailer_marimo::CellSnapshot;

/// The script and where each of its lines came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Script {
    pub text: String,
    /// Index `n` is script line `n + 1`: the cell's index and the 1-based line in the cell, or
    /// `None` for a header line.
    origins: Vec<Option<(usize, u32)>>,
}

impl Script {
    /// The cell and line a 1-based script line came from.
    pub(super) fn origin(&self, line: u32) -> Option<(usize, u32)> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        self.origins.get(index).copied().flatten()
    }
}

/// The cells in dependency order: a cell that defines a name comes before every cell that uses
/// it; otherwise notebook order is kept. Cells in a cycle keep their notebook order at the end.
/// Cells that do not compile are left out.
pub(super) fn order(cells: &[CellSnapshot]) -> Vec<usize> {
    let usable: Vec<usize> = (0..cells.len())
        .filter(|&index| cells[index].syntax.is_none())
        .collect();
    let mut definers: HashMap<&str, Vec<usize>> = HashMap::new();
    for &index in &usable {
        for name in &cells[index].defs {
            definers.entry(name.as_str()).or_default().push(index);
        }
    }
    let mut parents: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    let mut children: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    for &index in &usable {
        for name in &cells[index].refs {
            for &definer in definers.get(name.as_str()).into_iter().flatten() {
                if definer != index {
                    parents.entry(index).or_default().insert(definer);
                    children.entry(definer).or_default().insert(index);
                }
            }
        }
    }
    let mut waiting: HashMap<usize, usize> = usable
        .iter()
        .map(|&index| (index, parents.get(&index).map_or(0, BTreeSet::len)))
        .collect();
    let mut ready: BinaryHeap<Reverse<usize>> = usable
        .iter()
        .filter(|index| waiting.get(index) == Some(&0))
        .map(|&index| Reverse(index))
        .collect();
    let mut ordered = Vec::with_capacity(usable.len());
    while let Some(Reverse(index)) = ready.pop() {
        ordered.push(index);
        for &child in children.get(&index).into_iter().flatten() {
            if let Some(count) = waiting.get_mut(&child) {
                *count -= 1;
                if *count == 0 {
                    ready.push(Reverse(child));
                }
            }
        }
    }
    if ordered.len() < usable.len() {
        let placed: BTreeSet<usize> = ordered.iter().copied().collect();
        ordered.extend(usable.iter().filter(|index| !placed.contains(index)));
    }
    ordered
}

/// The script of `cells` in `order`.
pub(super) fn build(cells: &[CellSnapshot], order: &[usize]) -> Script {
    let mut text = String::new();
    let mut origins = Vec::new();
    for &index in order {
        let cell = &cells[index];
        text.push_str("# cell ");
        text.push_str(&cell.id);
        text.push('\n');
        origins.push(None);
        for (number, line) in cell.code.lines().enumerate() {
            text.push_str(line);
            text.push('\n');
            origins.push(Some((index, u32::try_from(number + 1).unwrap_or(u32::MAX))));
        }
    }
    Script { text, origins }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn cell(id: &str, code: &str, defs: &[&str], refs: &[&str]) -> CellSnapshot {
        CellSnapshot {
            id: id.to_owned(),
            name: String::new(),
            code: code.to_owned(),
            status: None,
            errors: Vec::new(),
            defs: defs.iter().map(|s| (*s).to_owned()).collect(),
            refs: refs.iter().map(|s| (*s).to_owned()).collect(),
            ..CellSnapshot::default()
        }
    }

    #[test]
    fn definitions_come_before_their_uses() {
        let cells = vec![
            cell("c", "print(total)", &[], &["total"]),
            cell("b", "total = df.sum()", &["total"], &["df"]),
            cell("a", "df = load()", &["df"], &["load"]),
            cell("d", "x = 1", &["x"], &[]),
        ];
        assert_eq!(order(&cells), vec![2, 1, 0, 3]);
    }

    #[test]
    fn cycles_and_broken_cells_do_not_lose_cells() {
        let mut broken = cell("z", "def (", &[], &[]);
        broken.syntax = Some(hailer_marimo::SyntaxIssue {
            line: Some(1),
            message: "invalid syntax".into(),
        });
        let cells = vec![
            cell("a", "a = b", &["a"], &["b"]),
            cell("b", "b = a", &["b"], &["a"]),
            broken,
        ];
        assert_eq!(order(&cells), vec![0, 1]);
    }

    #[test]
    fn every_line_maps_back_to_its_cell() {
        let cells = vec![
            cell("a", "x = 1\ny = 2", &["x", "y"], &[]),
            cell("b", "print(x)", &[], &["x"]),
        ];
        let script = build(&cells, &order(&cells));
        assert_eq!(script.text, "# cell a\nx = 1\ny = 2\n# cell b\nprint(x)\n");
        assert_eq!(script.origin(1), None);
        assert_eq!(script.origin(3), Some((0, 2)));
        assert_eq!(script.origin(5), Some((1, 1)));
        assert_eq!(script.origin(6), None);
        assert_eq!(script.origin(0), None);
    }
}
