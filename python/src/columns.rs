//! Tables handed to Python as columns: each a numpy dtype string and the
//! little-endian bytes of its values in a `bytearray`, which
//! `numpy.frombuffer` makes a writable array of without a copy (and
//! `array.array` reads without numpy). Immutable `bytes` had to be copied
//! for a writable array: with the Rust side's own copy, three copies of
//! each column were alive at once.

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict};

/// A value type with a numpy dtype.
pub trait Scalar: Copy {
    const DTYPE: &'static str;
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! scalar {
    ($t:ty, $d:literal) => {
        impl Scalar for $t {
            const DTYPE: &'static str = $d;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}
scalar!(u16, "<u2");
scalar!(u32, "<u4");
scalar!(u64, "<u8");
scalar!(i64, "<i8");
scalar!(f64, "<f8");

/// A column's name and how to read its value from a row.
pub type Field<T, S> = (&'static str, fn(&T) -> S);

/// One column per field, filled a row at a time.
#[derive(Default)]
pub struct Columns {
    cols: Vec<(&'static str, &'static str, Vec<u8>)>,
    rows: usize,
}

impl Columns {
    /// A table of `rows` rows with one column per `(name, getter)`.
    pub fn build<T, S: Scalar>(items: &[T], fields: &[Field<T, S>]) -> Columns {
        let mut cols: Vec<_> = fields
            .iter()
            .map(|(name, _)| {
                (
                    *name,
                    S::DTYPE,
                    Vec::with_capacity(items.len() * std::mem::size_of::<S>()),
                )
            })
            .collect();
        for it in items {
            for ((_, _, out), (_, get)) in cols.iter_mut().zip(fields) {
                get(it).put(out);
            }
        }
        Columns {
            cols,
            rows: items.len(),
        }
    }

    /// Append the columns of `other` (same row count).
    pub fn join(mut self, other: Columns) -> Columns {
        debug_assert!(self.cols.is_empty() || self.rows == other.rows);
        self.rows = other.rows.max(self.rows);
        self.cols.extend(other.cols);
        self
    }

    /// `{name: (dtype, bytearray)}`, each column's Rust copy freed as soon
    /// as Python has its own.
    pub fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, dtype, bytes) in self.cols {
            let column = PyByteArray::new(py, &bytes);
            drop(bytes);
            d.set_item(name, (dtype, column))?;
        }
        Ok(d)
    }
}
