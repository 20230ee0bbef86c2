//! The rule that says whether a Windows access list (DACL) keeps a file or folder its owner's
//! alone, over a plain description of the list, so it is table-tested on every host. The Windows
//! side (`windows_acl`) reads the real list into [`AclEntry`]s and asks [`owner_only`].

use std::fmt;

/// What an access-list entry does, from its `AceType` byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AceKind {
    /// `ACCESS_ALLOWED_ACE_TYPE`: grants its mask to its SID.
    Allow,
    /// One of the deny types (plain, object, callback, callback object): takes access away.
    Deny,
    /// Any other type (allow-object, allow-callback, a compound or an unknown type, ...): it
    /// might grant access in ways this rule does not read, so it is never taken as private.
    Other(u8),
}

impl AceKind {
    /// The kind of the entry whose `AceType` byte is `ace_type`.
    pub(crate) fn from_type(ace_type: u8) -> Self {
        match ace_type {
            // ACCESS_ALLOWED_ACE_TYPE
            0 => Self::Allow,
            // ACCESS_DENIED_ACE_TYPE, ACCESS_DENIED_OBJECT_ACE_TYPE,
            // ACCESS_DENIED_CALLBACK_ACE_TYPE, ACCESS_DENIED_CALLBACK_OBJECT_ACE_TYPE
            1 | 6 | 10 | 12 => Self::Deny,
            other => Self::Other(other),
        }
    }

    /// Whether an entry of this type lays its SID right after its mask (the plain allow and
    /// deny types and their callback forms); the object types put it elsewhere.
    pub(crate) fn sid_follows_mask(ace_type: u8) -> bool {
        matches!(ace_type, 0 | 1 | 9 | 10)
    }
}

/// One entry of an access list, as [`owner_only`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AclEntry {
    /// What the entry does.
    pub kind: AceKind,
    /// Whom it names, as a string SID (`S-1-5-21-…`); `None` when it was not read (the rule
    /// needs it only for [`AceKind::Allow`]).
    pub sid: Option<String>,
    /// The access rights it allows or denies; 0 grants nothing.
    pub mask: u32,
    /// Whether it came from the parent folder (`INHERITED_ACE`).
    pub inherited: bool,
}

/// Why an access list does not keep a file or folder its owner's alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotOwnerOnly {
    /// No access list at all (a NULL DACL), which lets everyone do everything.
    NoList,
    /// An entry allows access to someone else.
    Grants {
        /// The SID the entry names (a well-known one with its name), or `?` when unread.
        who: String,
        /// Whether the entry came from the parent folder.
        inherited: bool,
    },
    /// An entry of a type that could grant access in ways the rule does not read.
    UnreadKind {
        /// The entry's `AceType` byte.
        ace_type: u8,
    },
}

impl fmt::Display for NotOwnerOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoList => f.write_str("it has no access list, which lets everyone in"),
            Self::Grants { who, inherited } => {
                write!(f, "it allows access to {who}")?;
                if *inherited {
                    f.write_str(", inherited from its parent folder")?;
                }
                Ok(())
            }
            Self::UnreadKind { ace_type } => {
                write!(
                    f,
                    "it has an entry of type {ace_type} that may allow access to others"
                )
            }
        }
    }
}

/// Whether the access list `dacl` (`None`: a NULL DACL) lets only `owner` (the current user's
/// string SID) in: every entry that grants something is an allow entry for `owner`, inherited
/// or not. Deny entries only take access away, and an entry with an empty mask grants nothing;
/// an empty list lets nobody but the owner (who may always change the list) in.
pub(crate) fn owner_only(owner: &str, dacl: Option<&[AclEntry]>) -> Result<(), NotOwnerOnly> {
    let entries = dacl.ok_or(NotOwnerOnly::NoList)?;
    for entry in entries {
        if entry.mask == 0 {
            continue;
        }
        match entry.kind {
            AceKind::Deny => {}
            AceKind::Other(ace_type) => return Err(NotOwnerOnly::UnreadKind { ace_type }),
            AceKind::Allow => {
                let is_owner = entry
                    .sid
                    .as_deref()
                    .is_some_and(|sid| sid.eq_ignore_ascii_case(owner));
                if !is_owner {
                    return Err(NotOwnerOnly::Grants {
                        who: entry.sid.as_deref().map_or_else(|| "?".to_owned(), named),
                        inherited: entry.inherited,
                    });
                }
            }
        }
    }
    Ok(())
}

/// A string SID with the name of the well-known group or account it is, if it is one.
fn named(sid: &str) -> String {
    let name = match sid {
        "S-1-1-0" => "Everyone",
        "S-1-5-11" => "Authenticated Users",
        "S-1-5-32-545" => "Users",
        "S-1-5-32-544" => "Administrators",
        "S-1-5-18" => "SYSTEM",
        "S-1-3-0" => "CREATOR OWNER",
        _ => return sid.to_owned(),
    };
    format!("{sid} ({name})")
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: &str = "S-1-5-21-1004336348-1177238915-682003330-1001";
    const OTHER_USER: &str = "S-1-5-21-1004336348-1177238915-682003330-1002";
    const FULL: u32 = 0x001F_01FF;
    const READ: u32 = 0x0012_0089;

    fn entry(kind: AceKind, sid: &str, mask: u32) -> AclEntry {
        AclEntry {
            kind,
            sid: Some(sid.to_owned()),
            mask,
            inherited: false,
        }
    }

    fn inherited(entry: AclEntry) -> AclEntry {
        AclEntry {
            inherited: true,
            ..entry
        }
    }

    #[test]
    fn only_the_owner_may_be_allowed_in() {
        use AceKind::{Allow, Deny, Other};
        let owner = entry(Allow, OWNER, FULL);
        let grants = |sid: &str, inherited| {
            Err(NotOwnerOnly::Grants {
                who: sid.to_owned(),
                inherited,
            })
        };
        let table: Vec<(&str, Vec<AclEntry>, Result<(), NotOwnerOnly>)> = vec![
            ("the owner alone", vec![owner.clone()], Ok(())),
            (
                "the owner, inherited (a file made in a private folder)",
                vec![inherited(owner.clone())],
                Ok(()),
            ),
            (
                "the owner's SID in lower case",
                vec![entry(Allow, &OWNER.to_lowercase(), FULL)],
                Ok(()),
            ),
            ("an empty list: nobody", vec![], Ok(())),
            (
                "deny entries take nothing away from privacy",
                vec![entry(Deny, "S-1-1-0", FULL), owner.clone(), {
                    let mut deny_object = entry(Deny, "S-1-5-32-545", READ);
                    deny_object.sid = None;
                    deny_object
                }],
                Ok(()),
            ),
            (
                "an allow entry with no rights grants nothing",
                vec![owner.clone(), entry(Allow, "S-1-1-0", 0)],
                Ok(()),
            ),
            (
                "Everyone",
                vec![owner.clone(), entry(Allow, "S-1-1-0", READ)],
                grants("S-1-1-0 (Everyone)", false),
            ),
            (
                "Users",
                vec![owner.clone(), entry(Allow, "S-1-5-32-545", READ)],
                grants("S-1-5-32-545 (Users)", false),
            ),
            (
                "Authenticated Users",
                vec![entry(Allow, "S-1-5-11", FULL), owner.clone()],
                grants("S-1-5-11 (Authenticated Users)", false),
            ),
            (
                "another user",
                vec![owner.clone(), entry(Allow, OTHER_USER, READ)],
                grants(OTHER_USER, false),
            ),
            (
                "Wine's default list: SYSTEM, Administrators and the user",
                vec![
                    entry(Allow, "S-1-5-18", FULL),
                    entry(Allow, "S-1-5-32-544", FULL),
                    owner.clone(),
                ],
                grants("S-1-5-18 (SYSTEM)", false),
            ),
            (
                "Users, inherited from the parent folder",
                vec![owner.clone(), inherited(entry(Allow, "S-1-5-32-545", READ))],
                grants("S-1-5-32-545 (Users)", true),
            ),
            (
                "an allow entry whose SID was not read",
                vec![AclEntry {
                    kind: Allow,
                    sid: None,
                    mask: READ,
                    inherited: false,
                }],
                grants("?", false),
            ),
            (
                "an allow-object entry, even the owner's",
                vec![owner.clone(), entry(Other(5), OWNER, READ)],
                Err(NotOwnerOnly::UnreadKind { ace_type: 5 }),
            ),
            (
                "an allow-callback entry",
                vec![entry(Other(9), "S-1-1-0", READ), owner],
                Err(NotOwnerOnly::UnreadKind { ace_type: 9 }),
            ),
        ];
        for (case, entries, expected) in table {
            assert_eq!(owner_only(OWNER, Some(&entries)), expected, "{case}");
        }
        assert_eq!(
            owner_only(OWNER, None),
            Err(NotOwnerOnly::NoList),
            "NULL DACL"
        );
    }

    #[test]
    fn entry_kinds_from_their_type_byte() {
        let table = [
            (0, AceKind::Allow, true),
            (1, AceKind::Deny, true),
            (5, AceKind::Other(5), false),
            (6, AceKind::Deny, false),
            (9, AceKind::Other(9), true),
            (10, AceKind::Deny, true),
            (11, AceKind::Other(11), false),
            (12, AceKind::Deny, false),
            (4, AceKind::Other(4), false),
            (17, AceKind::Other(17), false),
        ];
        for (ace_type, kind, sid_follows_mask) in table {
            assert_eq!(AceKind::from_type(ace_type), kind, "{ace_type}");
            assert_eq!(
                AceKind::sid_follows_mask(ace_type),
                sid_follows_mask,
                "{ace_type}"
            );
        }
    }

    #[test]
    fn reasons_read_as_sentences() {
        let reason = NotOwnerOnly::Grants {
            who: named("S-1-5-32-545"),
            inherited: true,
        };
        assert_eq!(
            reason.to_string(),
            "it allows access to S-1-5-32-545 (Users), inherited from its parent folder"
        );
        assert!(NotOwnerOnly::NoList.to_string().contains("everyone"));
        assert!(
            NotOwnerOnly::UnreadKind { ace_type: 5 }
                .to_string()
                .contains("type 5")
        );
    }
}
