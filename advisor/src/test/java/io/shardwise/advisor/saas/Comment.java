package io.shardwise.advisor.saas;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

@Entity
@Table(name = "comments")
@NamedQuery(name = "Comment.ofTask", query = "select c from Comment c where c.task.id = :taskId")
public class Comment {
  @Id Long id;
  String body;
  @ManyToOne @JoinColumn(name = "task_id") Task task;
}
