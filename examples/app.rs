//! The example app's entities: a multi-tenant project management
//! (employees and tasks in one `tenantMembers` collection) and a document
//! with a lifecycle. Shared by the quickstart and the design export.

use entity_client::{Collection, Entity, KeyPart};

/// An employee of a tenant: by id, in the tenant's `tenantMembers`
/// collection (department, hire date), by email.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", rename_all = "camelCase")]
#[pk(employee_id)]
#[sk()]
#[index(by_tenant(
    gsi = "gsi1",
    collection = "tenantMembers",
    clustered,
    pk(tenant_id),
    sk(department, hire_date)
))]
#[index(by_email(gsi = "gsi3", pk(email), sk()))]
pub(crate) struct Employee {
    pub(crate) employee_id: String,
    pub(crate) tenant_id: String,
    pub(crate) email: String,
    pub(crate) department: String,
    pub(crate) hire_date: String,
    pub(crate) name: String,
}

/// A task: by id, in `tenantMembers` (project, id), by project (priority,
/// then status), by assignee (priority).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", rename_all = "camelCase")]
#[pk(task_id)]
#[sk()]
#[index(by_tenant(
    gsi = "gsi1",
    collection = "tenantMembers",
    clustered,
    pk(tenant_id),
    sk(project_id, task_id)
))]
#[index(by_project(gsi = "gsi3", pk(project_id), sk(priority, status)))]
#[index(by_assignee(gsi = "gsi2", pk(employee_id), sk(priority)))]
pub(crate) struct Task {
    pub(crate) task_id: String,
    pub(crate) tenant_id: String,
    pub(crate) project_id: String,
    pub(crate) employee_id: String,
    pub(crate) priority: u8,
    pub(crate) status: Status,
    pub(crate) title: String,
    pub(crate) comments: Vec<String>,
}

/// Everything of one tenant, read with one Query: the `tenantMembers` collection.
#[derive(Collection, Debug)]
#[collection(name = "tenantMembers", pk(tenant_id: String))]
pub(crate) enum TenantMembers {
    Employees(Employee),
    Tasks(Task),
}

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub(crate) enum Status {
    Open,
    Done,
}

/// A project document with a lifecycle: every version kept as a snapshot
/// (`SK@n`), and soft delete instead of delete.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", rename_all = "camelCase", soft_delete, history)]
#[pk(doc_id)]
#[sk()]
#[index(by_project(gsi = "gsi2", pk(project_id), sk(doc_id)))]
pub(crate) struct Doc {
    pub(crate) doc_id: String,
    pub(crate) project_id: String,
    pub(crate) body: String,
    #[entity(version)]
    pub(crate) version: u64,
}

/// Task `t-<n>` of tenant `t-acme`, open, with priority `n % 5`.
pub(crate) fn task(n: u8, project: &str, assignee: &str) -> Task {
    Task {
        task_id: format!("t-{n:03}"),
        tenant_id: "t-acme".into(),
        project_id: project.into(),
        employee_id: assignee.into(),
        priority: n % 5,
        status: Status::Open,
        title: format!("Task {n}"),
        comments: vec![],
    }
}
