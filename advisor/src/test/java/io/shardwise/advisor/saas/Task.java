package io.shardwise.advisor.saas;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

@Entity
@Table(name = "tasks")
@NamedQuery(name = "Task.ofProject", query = "select t from Task t where t.project.id = :projectId")
@NamedQuery(name = "Task.openOfTenant",
    query = "select t from Task t join t.project p where p.tenant.id = :tenantId and t.done = false")
@NamedQuery(name = "Task.countDone", query = "select count(t) from Task t where t.done = :done")
public class Task {
  @Id Long id;
  boolean done;
  @ManyToOne(optional = false) @JoinColumn(name = "project_id") Project project;
  @ManyToOne @JoinColumn(name = "assignee_id") Member assignee;
}
