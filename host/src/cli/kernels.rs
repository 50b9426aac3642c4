//! The kernels a command line knows: the built-in row-max family (`rtriton`), or a user's
//! own, given to [`super::main_with`] / [`super::App`] from the user's `main`.

use anyhow::bail;
use rtriton::trace::KernelDef;
use rtriton_kernels::RowMaxVariant;

/// A set of kernels with unique names.
#[derive(Clone, Debug)]
pub struct KernelSet {
    defs: Vec<KernelDef>,
    /// The row-max family: their default constexprs and `explain --case` apply.
    builtin: bool,
}

impl KernelSet {
    /// The row-max family, the `row_max_split*` kernels of the entry point, then every
    /// port's kernels, so `ptx`, `explain` and `lint` take them by name too.
    pub fn builtin() -> KernelSet {
        let mut defs: Vec<KernelDef> =
            RowMaxVariant::ALL.iter().map(|v| v.def()).chain(rtriton_kernels::split_kernels()).collect();
        for port in crate::ports::all() {
            for suite in (port.suites)() {
                // A port's kernel appears in several suites (one per direction or op).
                if !defs.iter().any(|d| d.name == suite.def.name) {
                    defs.push(suite.def);
                }
            }
        }
        KernelSet { defs, builtin: true }
    }

    /// A user's kernels, each given as the function `kernel!` generates (`scaled_add`).
    /// Two kernels of one name would make `--kernel NAME` ambiguous: an error.
    pub fn user(kernels: &[fn() -> KernelDef]) -> anyhow::Result<KernelSet> {
        let defs: Vec<KernelDef> = kernels.iter().map(|k| k()).collect();
        if defs.is_empty() {
            bail!("main_with: no kernels given; pass the functions `kernel!` made, e.g. main_with(&[my_kernel])");
        }
        for (i, d) in defs.iter().enumerate() {
            if let Some(other) = defs[..i].iter().find(|o| o.name == d.name) {
                bail!(
                    "main_with: two kernels are named `{}` (defined at {} and {}); give each kernel a distinct name",
                    d.name,
                    other.loc.short(),
                    d.loc.short()
                );
            }
        }
        Ok(KernelSet { defs, builtin: false })
    }

    pub fn defs(&self) -> &[KernelDef] {
        &self.defs
    }

    /// The kernel named `name`, or an error listing the known names.
    pub fn find(&self, name: &str) -> anyhow::Result<KernelDef> {
        match self.defs.iter().find(|d| d.name == name) {
            Some(d) => Ok(d.clone()),
            None => {
                let known: Vec<&str> = self.defs.iter().map(|d| d.name).collect();
                bail!("unknown kernel `{name}`; known kernels: {} (`list` shows their parameters)", known.join(", "))
            }
        }
    }

    /// The row-max variant `def` is, when this is the built-in set.
    pub fn row_max_variant(&self, def: &KernelDef) -> Option<RowMaxVariant> {
        if self.builtin { RowMaxVariant::from_name(def.name) } else { None }
    }

    /// Constexpr values used when the command line gives none: the row-max family's
    /// ahead-of-time values; none for a user's kernel (every constexpr is then required
    /// on the command line, and the error names the missing ones).
    pub fn default_constexprs(&self, def: &KernelDef) -> Vec<(&'static str, i64)> {
        self.row_max_variant(def).map(|v| v.default_constexprs()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_max() -> KernelDef {
        RowMaxVariant::RowMax.def()
    }
    fn row_max_2d() -> KernelDef {
        RowMaxVariant::RowMax2d.def()
    }

    #[test]
    fn a_user_set_finds_its_kernels_and_has_no_row_max_defaults() {
        let set = KernelSet::user(&[row_max, row_max_2d]).unwrap();
        let def = set.find("row_max_2d").unwrap();
        assert_eq!(def.name, "row_max_2d");
        assert_eq!(set.row_max_variant(&def), None);
        assert!(set.default_constexprs(&def).is_empty());
        let builtin = KernelSet::builtin();
        assert_eq!(builtin.row_max_variant(&def), Some(RowMaxVariant::RowMax2d));
        assert!(!builtin.default_constexprs(&def).is_empty());
        let e = set.find("nope").unwrap_err().to_string();
        assert_eq!(e, "unknown kernel `nope`; known kernels: row_max, row_max_2d (`list` shows their parameters)");
    }

    #[test]
    fn an_empty_or_ambiguous_user_set_is_an_error() {
        assert!(KernelSet::user(&[]).unwrap_err().to_string().contains("no kernels given"));
        let e = KernelSet::user(&[row_max, row_max]).unwrap_err().to_string();
        assert!(e.starts_with("main_with: two kernels are named `row_max` (defined at "), "{e}");
    }
}
