package io.shardwise.advisor.household;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

@Entity
@Table(name = "chores")
public class Chore {
  @Id Long id;
  @ManyToOne(optional = false) @JoinColumn(name = "resident_id") Resident resident;
}
