package io.shardwise.advisor.household;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.List;

@Entity
@Table(name = "households")
public class Household {
  @Id Long id;
  @OneToMany @JoinColumn(name = "household_id") List<Resident> residents;
}
