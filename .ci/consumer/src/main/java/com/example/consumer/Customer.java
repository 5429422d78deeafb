package com.example.consumer;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;

@Entity
@NamedQuery(name = "Customer.byId", query = "select c from Customer c where c.id = :id")
public class Customer {
  @Id @ShardKey Long id;
  String name;
}
